CREATE TABLE "agent_test_runs" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"test_id" uuid NOT NULL,
	"agent_id" uuid NOT NULL,
	"agent_version" integer,
	"batch_id" uuid,
	"mode" text DEFAULT 'chat' NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"transcript" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"results" jsonb,
	"tools_called" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"latency" jsonb,
	"cost_micro" bigint DEFAULT 0 NOT NULL,
	"error" text,
	"started_at" timestamp (3) with time zone,
	"finished_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "agent_tests" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"agent_id" uuid NOT NULL,
	"name" text NOT NULL,
	"scenario" jsonb NOT NULL,
	"criteria" jsonb NOT NULL,
	"tool_expectations" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"judge_model" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "agent_test_runs" ADD CONSTRAINT "agent_test_runs_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_test_runs" ADD CONSTRAINT "agent_test_runs_test_id_agent_tests_id_fk" FOREIGN KEY ("test_id") REFERENCES "public"."agent_tests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_tests" ADD CONSTRAINT "agent_tests_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_tests" ADD CONSTRAINT "agent_tests_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "agent_test_runs_org_idx" ON "agent_test_runs" USING btree ("organization_id","id");--> statement-breakpoint
CREATE INDEX "agent_test_runs_agent_idx" ON "agent_test_runs" USING btree ("agent_id","id");--> statement-breakpoint
CREATE INDEX "agent_test_runs_test_idx" ON "agent_test_runs" USING btree ("test_id","id");--> statement-breakpoint
CREATE INDEX "agent_tests_agent_idx" ON "agent_tests" USING btree ("agent_id","id");--> statement-breakpoint
CREATE INDEX "agent_tests_org_idx" ON "agent_tests" USING btree ("organization_id","id");