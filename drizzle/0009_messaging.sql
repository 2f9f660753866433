CREATE TABLE "messaging_channels" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"agent_id" uuid NOT NULL,
	"type" text NOT NULL,
	"name" text NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"external_id" text NOT NULL,
	"info" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"credentials" text NOT NULL,
	"idle_timeout_seconds" integer DEFAULT 1800 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "messaging_inbound" (
	"id" uuid PRIMARY KEY NOT NULL,
	"channel_id" uuid NOT NULL,
	"external_id" text NOT NULL,
	"end_user_id" text NOT NULL,
	"seq" bigint NOT NULL,
	"message" jsonb NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"claimed_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "messaging_sessions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"channel_id" uuid,
	"channel_type" text NOT NULL,
	"agent_id" uuid,
	"agent_name" text NOT NULL,
	"end_user_id" text NOT NULL,
	"end_user_name" text,
	"status" text NOT NULL,
	"ended_reason" text,
	"transcript" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"message_count" integer DEFAULT 0 NOT NULL,
	"started_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"last_activity_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"ended_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "usage_events" ADD COLUMN "chat_id" uuid;--> statement-breakpoint
ALTER TABLE "messaging_channels" ADD CONSTRAINT "messaging_channels_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messaging_channels" ADD CONSTRAINT "messaging_channels_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messaging_inbound" ADD CONSTRAINT "messaging_inbound_channel_id_messaging_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."messaging_channels"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messaging_sessions" ADD CONSTRAINT "messaging_sessions_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messaging_sessions" ADD CONSTRAINT "messaging_sessions_channel_id_messaging_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."messaging_channels"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messaging_sessions" ADD CONSTRAINT "messaging_sessions_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "messaging_channels_org_idx" ON "messaging_channels" USING btree ("organization_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "messaging_channels_external_idx" ON "messaging_channels" USING btree ("type","external_id");--> statement-breakpoint
CREATE UNIQUE INDEX "messaging_inbound_external_idx" ON "messaging_inbound" USING btree ("channel_id","external_id");--> statement-breakpoint
CREATE INDEX "messaging_inbound_conversation_idx" ON "messaging_inbound" USING btree ("channel_id","end_user_id","seq") WHERE "messaging_inbound"."status" <> 'done';--> statement-breakpoint
CREATE INDEX "messaging_inbound_created_idx" ON "messaging_inbound" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "messaging_sessions_org_idx" ON "messaging_sessions" USING btree ("organization_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "messaging_sessions_open_idx" ON "messaging_sessions" USING btree ("channel_id","end_user_id") WHERE "messaging_sessions"."status" = 'in-progress';--> statement-breakpoint
CREATE INDEX "messaging_sessions_idle_idx" ON "messaging_sessions" USING btree ("last_activity_at") WHERE "messaging_sessions"."status" = 'in-progress';--> statement-breakpoint
CREATE INDEX "usage_events_chat_idx" ON "usage_events" USING btree ("chat_id");