CREATE TABLE "widget_sessions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"widget_id" uuid,
	"agent_id" uuid,
	"agent_name" text NOT NULL,
	"visitor_id" text NOT NULL,
	"origin" text NOT NULL,
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
CREATE TABLE "widgets" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"agent_id" uuid NOT NULL,
	"name" text NOT NULL,
	"mode" text NOT NULL,
	"allowed_origins" jsonb NOT NULL,
	"title" text,
	"greeting" text,
	"colors" jsonb NOT NULL,
	"position" text NOT NULL,
	"token" text NOT NULL,
	"token_rotated_at" timestamp (3) with time zone,
	"revoked_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "widget_sessions" ADD CONSTRAINT "widget_sessions_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "widget_sessions" ADD CONSTRAINT "widget_sessions_widget_id_widgets_id_fk" FOREIGN KEY ("widget_id") REFERENCES "public"."widgets"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "widget_sessions" ADD CONSTRAINT "widget_sessions_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "widgets" ADD CONSTRAINT "widgets_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "widgets" ADD CONSTRAINT "widgets_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "widget_sessions_org_idx" ON "widget_sessions" USING btree ("organization_id","id");--> statement-breakpoint
CREATE INDEX "widget_sessions_widget_idx" ON "widget_sessions" USING btree ("widget_id","id");--> statement-breakpoint
CREATE INDEX "widget_sessions_idle_idx" ON "widget_sessions" USING btree ("last_activity_at") WHERE "widget_sessions"."status" = 'in-progress';--> statement-breakpoint
CREATE INDEX "widgets_org_idx" ON "widgets" USING btree ("organization_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "widgets_token_idx" ON "widgets" USING btree ("token");