-- A caller id belongs to one workspace. Where several workspaces had added the same number, the
-- workspace that added it first keeps it (calls keep their from_number: it is text, not a reference).
DELETE FROM "phone_numbers" p USING "phone_numbers" q
WHERE p."number" = q."number" AND (q."created_at", q."id") < (p."created_at", p."id");--> statement-breakpoint
DROP INDEX "phone_numbers_org_number_idx";--> statement-breakpoint
CREATE UNIQUE INDEX "phone_numbers_number_idx" ON "phone_numbers" USING btree ("number");--> statement-breakpoint
CREATE INDEX "phone_numbers_org_idx" ON "phone_numbers" USING btree ("organization_id","id");