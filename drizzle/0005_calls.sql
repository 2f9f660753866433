CREATE TABLE "calls" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"agent_id" uuid,
	"agent_name" text NOT NULL,
	"type" text NOT NULL,
	"direction" text NOT NULL,
	"status" text NOT NULL,
	"ended_reason" text,
	"from_number" text,
	"to_number" text,
	"provider" text,
	"provider_call_id" text,
	"idempotency_key" text,
	"idempotency_hash" text,
	"variables" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"transcript" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"analysis" jsonb,
	"report" jsonb,
	"analysis_error" text,
	"recording_key" text,
	"recording_seconds" integer,
	"session_token_hash" text,
	"session_token_expires_at" timestamp (3) with time zone,
	"session_token_used_at" timestamp (3) with time zone,
	"stream_token_hash" text,
	"deadline_at" timestamp (3) with time zone NOT NULL,
	"started_at" timestamp (3) with time zone,
	"ended_at" timestamp (3) with time zone,
	"cost_micro" bigint DEFAULT 0 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "phone_numbers" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"number" text NOT NULL,
	"provider" text DEFAULT 'twilio' NOT NULL,
	"label" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "usage_events" ADD COLUMN "call_id" uuid;--> statement-breakpoint
ALTER TABLE "calls" ADD CONSTRAINT "calls_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calls" ADD CONSTRAINT "calls_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "phone_numbers" ADD CONSTRAINT "phone_numbers_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "calls_org_idx" ON "calls" USING btree ("organization_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "calls_idempotency_idx" ON "calls" USING btree ("organization_id","idempotency_key");--> statement-breakpoint
CREATE INDEX "calls_provider_idx" ON "calls" USING btree ("provider","provider_call_id");--> statement-breakpoint
CREATE INDEX "calls_deadline_idx" ON "calls" USING btree ("deadline_at");--> statement-breakpoint
CREATE UNIQUE INDEX "phone_numbers_org_number_idx" ON "phone_numbers" USING btree ("organization_id","number");--> statement-breakpoint
CREATE INDEX "usage_events_call_idx" ON "usage_events" USING btree ("call_id");