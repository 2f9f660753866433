CREATE TABLE "credit_grants" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"amount_micro" bigint NOT NULL,
	"reason" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "credit_holds" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"amount_micro" bigint NOT NULL,
	"purpose" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "credit_grants" ADD CONSTRAINT "credit_grants_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "credit_holds" ADD CONSTRAINT "credit_holds_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "credit_grants_org_idx" ON "credit_grants" USING btree ("organization_id");--> statement-breakpoint
CREATE INDEX "credit_holds_created_idx" ON "credit_holds" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "credit_holds_org_idx" ON "credit_holds" USING btree ("organization_id");--> statement-breakpoint
-- Opening balance of workspaces that exist before the ledger: what they hold now plus what they were charged, so the books close from the first day.
INSERT INTO "credit_grants" ("id", "organization_id", "amount_micro", "reason")
SELECT gen_random_uuid(), o."id", o."credits_micro" + COALESCE((SELECT sum(u."cost_micro") FROM "usage_events" u WHERE u."organization_id" = o."id"), 0), 'opening_balance'
FROM "organizations" o;
