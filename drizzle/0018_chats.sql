CREATE TABLE "chats" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"channel" text NOT NULL,
	"widget_id" uuid,
	"channel_id" uuid,
	"agent_id" uuid,
	"agent_name" text NOT NULL,
	"end_user_id" text NOT NULL,
	"end_user_name" text,
	"origin" text,
	"status" text NOT NULL,
	"ended_reason" text,
	"transcript" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"message_count" integer DEFAULT 0 NOT NULL,
	"tool_call_count" integer DEFAULT 0 NOT NULL,
	"started_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"last_activity_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"ended_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
-- Widget chats and messaging conversations become rows of one table, ids kept (the usage log's
-- chat_id and the webhooks' subject ids still find them). drizzle's migrator applies pending
-- migrations in one transaction; the locks make a writer of the old tables wait for it and then
-- fail, rather than write a turn that the copy would miss.
LOCK TABLE "widget_sessions", "messaging_sessions" IN EXCLUSIVE MODE;--> statement-breakpoint
INSERT INTO "chats" ("id", "organization_id", "channel", "widget_id", "channel_id", "agent_id", "agent_name", "end_user_id", "end_user_name", "origin", "status", "ended_reason", "transcript", "message_count", "tool_call_count", "started_at", "last_activity_at", "ended_at", "created_at", "updated_at")
SELECT "id", "organization_id", 'widget', "widget_id", NULL, "agent_id", "agent_name", "visitor_id", NULL, "origin", "status", "ended_reason", "transcript", "message_count", "tool_call_count", "started_at", "last_activity_at", "ended_at", "created_at", "updated_at"
FROM "widget_sessions";--> statement-breakpoint
INSERT INTO "chats" ("id", "organization_id", "channel", "widget_id", "channel_id", "agent_id", "agent_name", "end_user_id", "end_user_name", "origin", "status", "ended_reason", "transcript", "message_count", "tool_call_count", "started_at", "last_activity_at", "ended_at", "created_at", "updated_at")
SELECT "id", "organization_id", "channel_type", NULL, "channel_id", "agent_id", "agent_name", "end_user_id", "end_user_name", NULL, "status", "ended_reason", "transcript", "message_count", "tool_call_count", "started_at", "last_activity_at", "ended_at", "created_at", "updated_at"
FROM "messaging_sessions";--> statement-breakpoint
DROP TABLE "messaging_sessions" CASCADE;--> statement-breakpoint
DROP TABLE "widget_sessions" CASCADE;--> statement-breakpoint
ALTER TABLE "chats" ADD CONSTRAINT "chats_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chats" ADD CONSTRAINT "chats_widget_id_widgets_id_fk" FOREIGN KEY ("widget_id") REFERENCES "public"."widgets"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chats" ADD CONSTRAINT "chats_channel_id_messaging_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."messaging_channels"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chats" ADD CONSTRAINT "chats_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "chats_org_idx" ON "chats" USING btree ("organization_id","id");--> statement-breakpoint
CREATE INDEX "chats_widget_idx" ON "chats" USING btree ("widget_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "chats_open_conversation_idx" ON "chats" USING btree ("channel_id","end_user_id") WHERE "chats"."status" = 'in-progress';--> statement-breakpoint
CREATE INDEX "chats_idle_idx" ON "chats" USING btree ("last_activity_at") WHERE "chats"."status" = 'in-progress';