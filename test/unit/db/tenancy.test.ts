// The tenancy rule's helpers (src/db/tenancy.ts): the condition they make always names the
// organization, with the organization given as a bound parameter, so a query built from them
// cannot match another workspace's row.
import { PgDialect } from "drizzle-orm/pg-core";
import { describe, expect, it } from "vitest";
import { agents, webhookEndpoints } from "../../../src/db/schema";
import { ownedBy, ownedRow } from "../../../src/db/tenancy";

const dialect = new PgDialect();
const ORG = "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77";
const OTHER = "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b78";
const ID = "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b79";

describe("tenancy helpers", () => {
  it("ownedBy: the table's organization column equals the organization, bound as a parameter", () => {
    const q = dialect.sqlToQuery(ownedBy(agents, ORG));
    expect(q.sql).toBe('"agents"."organization_id" = $1');
    expect(q.params).toEqual([ORG]);
    expect(dialect.sqlToQuery(ownedBy(webhookEndpoints, OTHER)).params).toEqual([OTHER]);
  });

  it("ownedRow: the id and the organization, both required", () => {
    const q = dialect.sqlToQuery(ownedRow(agents, ORG, ID));
    expect(q.sql).toBe('("agents"."id" = $1 and "agents"."organization_id" = $2)');
    expect(q.params).toEqual([ID, ORG]);
  });

  it("a value made to look like SQL stays a parameter", () => {
    const q = dialect.sqlToQuery(ownedBy(agents, "' or 1=1 --"));
    expect(q.sql).not.toContain("1=1");
    expect(q.params).toEqual(["' or 1=1 --"]);
  });
});
