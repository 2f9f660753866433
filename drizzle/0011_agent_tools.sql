ALTER TABLE "agents" ADD COLUMN "tools" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "tool_secret" text;--> statement-breakpoint
ALTER TABLE "messaging_sessions" ADD COLUMN "tool_call_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "widget_sessions" ADD COLUMN "tool_call_count" integer DEFAULT 0 NOT NULL;