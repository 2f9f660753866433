CREATE TABLE "usage_daily_stats" (
	"organization_id" uuid NOT NULL,
	"day" date NOT NULL,
	"modality" text NOT NULL,
	"unit" text NOT NULL,
	"requests" integer DEFAULT 0 NOT NULL,
	"succeeded" integer DEFAULT 0 NOT NULL,
	"quantity" bigint DEFAULT 0 NOT NULL,
	"cost_micro" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "usage_daily_stats_organization_id_day_modality_unit_pk" PRIMARY KEY("organization_id","day","modality","unit")
);
--> statement-breakpoint
ALTER TABLE "usage_daily_stats" ADD CONSTRAINT "usage_daily_stats_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- The uses logged so far, added up as the metering statements add each new one (src/metering/queries.ts):
-- per workspace, UTC day of created_at, modality and unit; every use a request, a status below 400 a success.
INSERT INTO "usage_daily_stats" ("organization_id", "day", "modality", "unit", "requests", "succeeded", "quantity", "cost_micro")
SELECT "organization_id", ("created_at" AT TIME ZONE 'UTC')::date, "modality", "unit",
  count(*),
  count(*) FILTER (WHERE "status" < 400),
  coalesce(sum("quantity"), 0),
  coalesce(sum("cost_micro"), 0)
FROM "usage_events"
GROUP BY 1, 2, 3, 4;
