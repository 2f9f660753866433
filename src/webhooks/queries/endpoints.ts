// The queries of webhook endpoints (src/webhooks/endpoints.ts holds the rules): a workspace's
// endpoints, each scoped with src/db/tenancy.ts so another workspace's id answers like a missing
// one, and the test receiver's lookup by capture token.
import { and, desc, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import type { PageQuery } from "../../db/pagination";
import { type WebhookEndpoint, webhookEndpoints } from "../../db/schema";
import { ownedBy, ownedRow } from "../../db/tenancy";

type NewEndpoint = typeof webhookEndpoints.$inferInsert;

/** Inserts an endpoint; the row as written. */
export async function insertEndpoint(db: Db, values: NewEndpoint): Promise<WebhookEndpoint | undefined> {
  const [row] = await db.insert(webhookEndpoints).values(values).returning();
  return row;
}

/** The workspace's endpoint with this id, if any. */
export async function findEndpoint(db: Db, organizationId: string, id: string): Promise<WebhookEndpoint | undefined> {
  const [row] = await db
    .select()
    .from(webhookEndpoints)
    .where(ownedRow(webhookEndpoints, organizationId, id));
  return row;
}

/**
 * Reads the row FOR UPDATE and writes what `change` makes of it, in one transaction, so a
 * concurrent change waits instead of being lost; an error thrown by `change` rolls it back. The
 * row as written, or none when the workspace has no endpoint with this id.
 */
export async function changeEndpoint(
  db: Db,
  organizationId: string,
  id: string,
  change: (current: WebhookEndpoint) => Partial<NewEndpoint>,
): Promise<WebhookEndpoint | undefined> {
  return db.transaction(async (tx) => {
    const [current] = await tx
      .select()
      .from(webhookEndpoints)
      .where(ownedRow(webhookEndpoints, organizationId, id))
      .for("update");
    if (!current) return undefined;
    const [row] = await tx
      .update(webhookEndpoints)
      .set(change(current))
      .where(ownedRow(webhookEndpoints, organizationId, id))
      .returning();
    return row;
  });
}

/** Stores a new sealed secret, rotated now; the row as written (none when not the workspace's). */
export async function replaceEndpointSecret(
  db: Db,
  organizationId: string,
  id: string,
  sealed: string,
): Promise<WebhookEndpoint | undefined> {
  const [row] = await db
    .update(webhookEndpoints)
    .set({ secret: sealed, secretRotatedAt: new Date() })
    .where(ownedRow(webhookEndpoints, organizationId, id))
    .returning();
  return row;
}

/** Deletes the workspace's endpoint (its deliveries go with it); false when there was none. */
export async function deleteOwnedEndpoint(db: Db, organizationId: string, id: string): Promise<boolean> {
  const deleted = await db
    .delete(webhookEndpoints)
    .where(ownedRow(webhookEndpoints, organizationId, id))
    .returning({ id: webhookEndpoints.id });
  return deleted.length > 0;
}

/** A page of the workspace's endpoints, newest first, one row past the page to tell whether more follow. */
export async function endpointPage(db: Db, organizationId: string, page: PageQuery): Promise<WebhookEndpoint[]> {
  return db
    .select()
    .from(webhookEndpoints)
    .where(and(ownedBy(webhookEndpoints, organizationId), ...page.where(webhookEndpoints)))
    .orderBy(desc(webhookEndpoints.id))
    .limit(page.limit + 1);
}

/** Whether an endpoint has this capture token, whatever its workspace (the token is the credential). */
export async function captureTokenExists(db: Db, token: string): Promise<boolean> {
  const [endpoint] = await db
    .select({ id: webhookEndpoints.id })
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.captureToken, token))
    .limit(1);
  return Boolean(endpoint);
}
