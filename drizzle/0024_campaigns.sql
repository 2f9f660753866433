CREATE TABLE "campaign_recipients" (
	"id" uuid PRIMARY KEY NOT NULL,
	"campaign_id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"row" integer NOT NULL,
	"phone_number" text NOT NULL,
	"timezone" text,
	"variables" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"state" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp (3) with time zone,
	"last_call_id" uuid,
	"last_ended_reason" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "campaigns" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"name" text NOT NULL,
	"agent_id" uuid,
	"from_numbers" text[] NOT NULL,
	"status" text DEFAULT 'draft' NOT NULL,
	"paused_reason" text,
	"schedule" jsonb,
	"retry" jsonb NOT NULL,
	"max_calls_in_flight" integer NOT NULL,
	"calls_in_flight" integer DEFAULT 0 NOT NULL,
	"recipient_count" integer DEFAULT 0 NOT NULL,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"started_at" timestamp (3) with time zone,
	"completed_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "voicemail" jsonb DEFAULT '{"detection":"off","message":null}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "campaign_id" uuid;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "campaign_recipient_id" uuid;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "answered_by" text;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "calls_in_flight" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "max_calls_in_flight" integer DEFAULT 20 NOT NULL;--> statement-breakpoint
ALTER TABLE "campaign_recipients" ADD CONSTRAINT "campaign_recipients_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaign_recipients" ADD CONSTRAINT "campaign_recipients_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "campaign_recipients_number_idx" ON "campaign_recipients" USING btree ("campaign_id","phone_number");--> statement-breakpoint
CREATE INDEX "campaign_recipients_due_idx" ON "campaign_recipients" USING btree ("campaign_id","state","next_attempt_at","row");--> statement-breakpoint
CREATE INDEX "campaigns_org_idx" ON "campaigns" USING btree ("organization_id","id");--> statement-breakpoint
CREATE INDEX "campaigns_status_idx" ON "campaigns" USING btree ("status");--> statement-breakpoint
CREATE INDEX "calls_campaign_idx" ON "calls" USING btree ("campaign_id","status");--> statement-breakpoint
-- Calls in flight (docs/campaigns.md): a call is in flight from the statement that inserts it (queued,
-- ringing or in progress) to the statement that ends it. Kept here, in the same statements, so no
-- writer (the API, the dashboard, an inbound call, a campaign's runner, two workers racing) can pass
-- the workspace's or the campaign's limit, and none can forget to give a place back.
CREATE FUNCTION "calls_in_flight_take"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "organizations" SET "calls_in_flight" = "calls_in_flight" + 1
    WHERE "id" = NEW."organization_id" AND "calls_in_flight" < "max_calls_in_flight";
  IF NOT FOUND THEN
    RAISE EXCEPTION 'calls_in_flight_limit' USING ERRCODE = 'VA429', DETAIL = 'workspace';
  END IF;
  IF NEW."campaign_id" IS NOT NULL THEN
    UPDATE "campaigns" SET "calls_in_flight" = "calls_in_flight" + 1
      WHERE "id" = NEW."campaign_id" AND "calls_in_flight" < "max_calls_in_flight";
    IF NOT FOUND THEN
      RAISE EXCEPTION 'calls_in_flight_limit' USING ERRCODE = 'VA429', DETAIL = 'campaign';
    END IF;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "calls_in_flight_take" AFTER INSERT ON "calls" FOR EACH ROW
  WHEN (NEW."status" IN ('queued', 'ringing', 'in-progress')) EXECUTE FUNCTION "calls_in_flight_take"();
--> statement-breakpoint
CREATE FUNCTION "calls_in_flight_give"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "organizations" SET "calls_in_flight" = greatest("calls_in_flight" - 1, 0) WHERE "id" = OLD."organization_id";
  IF OLD."campaign_id" IS NOT NULL THEN
    UPDATE "campaigns" SET "calls_in_flight" = greatest("calls_in_flight" - 1, 0) WHERE "id" = OLD."campaign_id";
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "calls_in_flight_give" AFTER UPDATE OF "status" ON "calls" FOR EACH ROW
  WHEN (OLD."status" IN ('queued', 'ringing', 'in-progress') AND NEW."status" NOT IN ('queued', 'ringing', 'in-progress'))
  EXECUTE FUNCTION "calls_in_flight_give"();
--> statement-breakpoint
-- The calls already in flight when this ran.
UPDATE "organizations" o SET "calls_in_flight" = c.n
  FROM (SELECT "organization_id", count(*)::int AS n FROM "calls" WHERE "status" IN ('queued', 'ringing', 'in-progress') GROUP BY 1) c
  WHERE c."organization_id" = o."id";
