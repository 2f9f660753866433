CREATE TABLE "agent_versions" (
	"organization_id" uuid NOT NULL,
	"agent_id" uuid NOT NULL,
	"version" integer NOT NULL,
	"config" jsonb NOT NULL,
	"changes" text[] DEFAULT '{}' NOT NULL,
	"created_by_type" text NOT NULL,
	"created_by_id" uuid,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "agent_versions_agent_id_version_pk" PRIMARY KEY("agent_id","version")
);
--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "live_version" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "latest_version" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "agent_version" integer;--> statement-breakpoint
ALTER TABLE "chats" ADD COLUMN "agent_version" integer;--> statement-breakpoint
ALTER TABLE "agent_versions" ADD CONSTRAINT "agent_versions_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_versions" ADD CONSTRAINT "agent_versions_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "agent_versions_org_idx" ON "agent_versions" USING btree ("organization_id","agent_id");--> statement-breakpoint
-- Every agent that exists gets version 1, live, from its current row (the keys are those of
-- AGENT_CONFIG_KEYS, src/db/schema/agent-versions.ts: the row minus id, tenancy, secret, counters, timestamps).
INSERT INTO "agent_versions" ("organization_id", "agent_id", "version", "config", "created_by_type", "created_at")
SELECT "organization_id", "id", 1, jsonb_build_object(
  'name', "name", 'personaId', "persona_id", 'systemPrompt', "system_prompt", 'firstMessage', "first_message",
  'language', "language", 'voiceId', "voice_id", 'llmModel', "llm_model", 'temperature', "temperature",
  'maxDurationSeconds', "max_duration_seconds", 'silenceTimeoutSeconds', "silence_timeout_seconds",
  'endCallPhrases', "end_call_phrases", 'metadata', "metadata", 'analysisPlan', "analysis_plan",
  'turnTaking', "turn_taking", 'tools', "tools", 'knowledge', "knowledge", 'voicemail', "voicemail"
), 'system', "updated_at"
FROM "agents";
