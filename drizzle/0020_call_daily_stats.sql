CREATE TABLE "call_daily_stats" (
	"organization_id" uuid NOT NULL,
	"day" date NOT NULL,
	"agent_id" uuid NOT NULL,
	"agent_name" text NOT NULL,
	"calls" integer DEFAULT 0 NOT NULL,
	"connected_seconds" double precision DEFAULT 0 NOT NULL,
	"cost_micro" bigint DEFAULT 0 NOT NULL,
	"analyzed" integer DEFAULT 0 NOT NULL,
	"success_sum" double precision DEFAULT 0 NOT NULL,
	"replies" integer DEFAULT 0 NOT NULL,
	"latency_histogram" integer[] DEFAULT '{}'::integer[] NOT NULL,
	CONSTRAINT "call_daily_stats_organization_id_day_agent_id_agent_name_pk" PRIMARY KEY("organization_id","day","agent_id","agent_name")
);
--> statement-breakpoint
ALTER TABLE "call_daily_stats" ADD CONSTRAINT "call_daily_stats_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- The calls that had ended: their figures per day and agent (the buckets of src/calls/queries/stats.ts).
INSERT INTO "call_daily_stats" ("organization_id", "day", "agent_id", "agent_name", "calls", "connected_seconds", "cost_micro", "analyzed", "success_sum", "replies")
SELECT "organization_id", ("created_at" AT TIME ZONE 'UTC')::date, coalesce("agent_id", '00000000-0000-0000-0000-000000000000'), "agent_name",
  count(*),
  coalesce(sum(extract(epoch FROM ("ended_at" - "started_at"))) FILTER (WHERE "started_at" IS NOT NULL), 0),
  sum("cost_micro"),
  count("report"),
  coalesce(sum(("report"->>'successScore')::float8), 0),
  coalesce(sum(cardinality("voice_to_voice_ms")), 0)
FROM "calls" WHERE "ended_at" IS NOT NULL
GROUP BY 1, 2, 3, 4;
--> statement-breakpoint
UPDATE "call_daily_stats" AS "s" SET "latency_histogram" = (
  SELECT array_agg(coalesce("x"."n", 0) ORDER BY "b"."i")::integer[]
  FROM generate_series(0, 370) AS "b"("i")
  LEFT JOIN (
    SELECT CASE WHEN "v" < 3000 THEN greatest(0, "v" / 10) WHEN "v" < 10000 THEN 300 + ("v" - 3000) / 100 ELSE 370 END AS "i", count(*) AS "n"
    FROM "calls" AS "c", unnest("c"."voice_to_voice_ms") AS "v"
    WHERE "c"."ended_at" IS NOT NULL AND "c"."organization_id" = "s"."organization_id"
      AND ("c"."created_at" AT TIME ZONE 'UTC')::date = "s"."day"
      AND coalesce("c"."agent_id", '00000000-0000-0000-0000-000000000000') = "s"."agent_id" AND "c"."agent_name" = "s"."agent_name"
    GROUP BY 1
  ) AS "x" ON "x"."i" = "b"."i"
) WHERE "s"."replies" > 0;
