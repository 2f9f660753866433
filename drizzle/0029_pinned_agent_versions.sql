ALTER TABLE "campaigns" ADD COLUMN "agent_version" integer;--> statement-breakpoint
ALTER TABLE "messaging_channels" ADD COLUMN "agent_version" integer;--> statement-breakpoint
ALTER TABLE "widgets" ADD COLUMN "agent_version" integer;