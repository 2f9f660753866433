ALTER TABLE "agent_test_runs" ALTER COLUMN "test_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "agent_test_runs" ADD COLUMN "source" jsonb;--> statement-breakpoint
ALTER TABLE "agent_test_runs" ADD COLUMN "criteria" jsonb;--> statement-breakpoint
ALTER TABLE "agent_test_runs" ADD COLUMN "turns" jsonb;--> statement-breakpoint
ALTER TABLE "agent_test_runs" ADD CONSTRAINT "agent_test_runs_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;