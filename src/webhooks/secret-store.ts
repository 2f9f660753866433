// Webhook signing secrets at rest (docs/secrets.md): sealed with SECRETS_KEK in
// webhook_endpoints.secret, bound to their endpoint's id; opened to sign an attempt and to show
// the masked form. Rows written before encryption hold the plaintext `whs_…`: they open as is
// (migrate on read, nothing written) until `npm run admin -- secrets reseal` seals them.
import { and, count, eq, gt, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { type WebhookEndpoint, webhookEndpoints } from "../db/schema";
import type { AppConfig } from "../env";
import { isSealed, type Keyring, openSecret, sealedKid, sealSecret } from "../lib/secrets";

type Keys = Pick<AppConfig, "SECRETS_KEK">;

/** The additional data of an endpoint's sealed secret: a value moved to another row does not open. */
const place = (endpointId: string) => `webhook_endpoints.secret:${endpointId}`;

export const sealEndpointSecret = (keys: Keys, endpointId: string, secret: string): Promise<string> =>
  sealSecret(keys.SECRETS_KEK, secret, place(endpointId));

/** An endpoint's signing secret in clear: to sign an attempt (deliver.ts) and for the views. */
export const openEndpointSecret = (keys: Keys, endpoint: Pick<WebhookEndpoint, "id" | "secret">): Promise<string> =>
  openSecret(keys.SECRETS_KEK, endpoint.secret, place(endpoint.id));

/** The row with its secret opened (a row already opened is returned as it is). */
export const openEndpoint = async <T extends Pick<WebhookEndpoint, "id" | "secret">>(keys: Keys, row: T): Promise<T> => ({
  ...row,
  secret: await openEndpointSecret(keys, row),
});

export interface ResealReport {
  /** The key id every secret is sealed with afterwards. */
  kid: string;
  /** Legacy plaintext values sealed now. */
  sealed: number;
  /** Values under an older key, sealed again with the current one. */
  resealed: number;
  /** Already under the current key. */
  current: number;
  /** Changed by someone else (a rotation) between our read and write: that write sealed it already. */
  skipped: number;
}

/**
 * Seals every plaintext secret and re-seals every secret under another key than the current
 * one (after a key rotation), a page at a time in id order. Every value is opened, those under
 * the current key too, so a wrong key stops the run with its error instead of passing them as
 * current. Each write is conditional on the value read, so a concurrent rotation is never
 * overwritten. Safe to run again: a second run finds everything current.
 */
export async function resealEndpointSecrets(
  db: Db,
  keyring: Keyring,
  opts: { organizationId?: string; pageSize?: number } = {},
): Promise<ResealReport> {
  const pageSize = opts.pageSize ?? 200;
  const keys = { SECRETS_KEK: keyring };
  const report: ResealReport = { kid: keyring.current, sealed: 0, resealed: 0, current: 0, skipped: 0 };
  let after: string | undefined;
  for (;;) {
    const rows = await db
      .select({ id: webhookEndpoints.id, secret: webhookEndpoints.secret })
      .from(webhookEndpoints)
      .where(
        and(
          opts.organizationId ? eq(webhookEndpoints.organizationId, opts.organizationId) : undefined,
          after ? gt(webhookEndpoints.id, after) : undefined,
        ),
      )
      .orderBy(webhookEndpoints.id)
      .limit(pageSize);
    for (const row of rows) {
      const plain = await openEndpointSecret(keys, row);
      if (sealedKid(row.secret) === keyring.current) {
        report.current++;
        continue;
      }
      const updated = await db
        .update(webhookEndpoints)
        .set({ secret: await sealEndpointSecret(keys, row.id, plain) })
        .where(and(eq(webhookEndpoints.id, row.id), eq(webhookEndpoints.secret, row.secret)))
        .returning({ id: webhookEndpoints.id });
      if (updated.length === 0) report.skipped++;
      else if (isSealed(row.secret)) report.resealed++;
      else report.sealed++;
    }
    if (rows.length < pageSize) return report;
    after = rows[rows.length - 1]?.id;
  }
}

/** How many stored secrets each key id seals (`plaintext`: legacy rows not sealed yet). */
export async function secretKeyUsage(db: Db, organizationId?: string): Promise<Record<string, number>> {
  const kid = sql<string>`case when ${webhookEndpoints.secret} like 'v1:%' then split_part(${webhookEndpoints.secret}, ':', 2) else 'plaintext' end`;
  const rows = await db
    .select({ kid, n: count() })
    .from(webhookEndpoints)
    .where(organizationId ? eq(webhookEndpoints.organizationId, organizationId) : undefined)
    .groupBy(kid);
  return Object.fromEntries(rows.map((r) => [r.kid, Number(r.n)]));
}
