ALTER TABLE "calls" ADD COLUMN "voice_to_voice_ms" integer[];--> statement-breakpoint
-- Calls that ended before the column: their measured replies, from the transcript.
UPDATE "calls" SET "voice_to_voice_ms" = coalesce(
  (SELECT array_agg(round(("turn"->'latency'->>'voiceToVoiceMs')::numeric)::int ORDER BY "ord")
     FROM jsonb_array_elements("transcript") WITH ORDINALITY AS "t"("turn", "ord")
    WHERE "turn" ? 'latency'),
  '{}'
) WHERE "ended_at" IS NOT NULL;
