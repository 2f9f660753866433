-- A delivery's organization and endpoint checked as one pair against the endpoint: one foreign-key check per row
-- instead of two, and a delivery can no longer name another organization's endpoint. The unique index comes first
-- (a foreign key needs one on the columns it names), the old keys go last.
CREATE UNIQUE INDEX "webhook_endpoints_org_id_uq" ON "webhook_endpoints" USING btree ("organization_id","id");--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_endpoint_fk" FOREIGN KEY ("organization_id","endpoint_id") REFERENCES "public"."webhook_endpoints"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_organization_id_organizations_id_fk";--> statement-breakpoint
ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_endpoint_id_webhook_endpoints_id_fk";--> statement-breakpoint
DROP INDEX "webhook_endpoints_org_idx";
