-- Calls made twice for one provider call id before this index existed (concurrent copies of
-- Twilio's voice webhook) keep their rows and charges; the later copies' ids get a suffix so the
-- earliest call stays the one the provider's callbacks find.
UPDATE "calls" SET "provider_call_id" = "provider_call_id" || ':duplicate:' || "id"
WHERE "provider_call_id" IS NOT NULL AND "id" NOT IN (
  SELECT DISTINCT ON ("provider", "provider_call_id") "id" FROM "calls"
  WHERE "provider_call_id" IS NOT NULL ORDER BY "provider", "provider_call_id", "id"
);--> statement-breakpoint
DROP INDEX "calls_provider_idx";--> statement-breakpoint
CREATE UNIQUE INDEX "calls_provider_call_idx" ON "calls" USING btree ("provider","provider_call_id");
