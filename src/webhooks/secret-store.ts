// Webhook signing secrets at rest (docs/secrets.md): sealed with SECRETS_KEK in
// webhook_endpoints.secret, bound to their endpoint's id; opened to sign an attempt and to show
// the masked form. Rows written before encryption hold the plaintext `whs_…`: they open as is
// (migrate on read, nothing written) until `npm run admin -- secrets reseal` seals them.
//
// The reseal and the key usage report work on any column of sealed secrets (a SealedColumn): the
// endpoints' here, the agents' tool secrets (src/tools/secret.ts), the messaging channels'
// credentials (src/messaging/channels.ts); the admin CLI runs them over all three. Their
// statements are in queries/secrets.ts.
import type { Db } from "../db/client";
import { type WebhookEndpoint, webhookEndpoints } from "../db/schema";
import type { AppConfig } from "../env";
import { hmacSha256Key } from "../lib/crypto";
import { isSealed, type Keyring, keptPerSealedValue, openSecret, sealedKid, sealSecret } from "../lib/secrets";
import { countByKid, type SealedColumn, sealedValueWriter, storedValues } from "./queries/secrets";

// Described with the queries over it; the other columns' owners take it from here.
export type { SealedColumn };

type Keys = Pick<AppConfig, "SECRETS_KEK">;

export const endpointSecretColumn: SealedColumn = {
  place: "webhook_endpoints.secret",
  table: webhookEndpoints,
  id: webhookEndpoints.id,
  value: webhookEndpoints.secret,
  organizationId: webhookEndpoints.organizationId,
};

/** The additional data of an endpoint's sealed secret: a value moved to another row does not open. */
const place = (endpointId: string) => `${endpointSecretColumn.place}:${endpointId}`;

export const sealEndpointSecret = (keys: Keys, endpointId: string, secret: string): Promise<string> =>
  sealSecret(keys.SECRETS_KEK, secret, place(endpointId));

/** An endpoint's signing secret in clear: to sign an attempt (deliver.ts) and for the views. */
export const openEndpointSecret = (keys: Keys, endpoint: Pick<WebhookEndpoint, "id" | "secret">): Promise<string> =>
  openSecret(keys.SECRETS_KEK, endpoint.secret, place(endpoint.id));

/** Endpoint signing keys an isolate keeps (by endpoint and sealed value); past this many, the oldest goes. */
const signingKeys = keptPerSealedValue<CryptoKey>(1000);

/**
 * The endpoint's signing key (HMAC-SHA256 of its secret), opened and imported once per isolate
 * and sealed value: a fan-out to the same endpoints signs with one WebCrypto call per attempt
 * instead of three. A secret that does not open (its key left SECRETS_KEK) is not kept.
 */
export const endpointSigningKey = (keys: Keys, endpoint: Pick<WebhookEndpoint, "id" | "secret">): Promise<CryptoKey> =>
  signingKeys(keys.SECRETS_KEK, `${endpoint.id}:${endpoint.secret}`, () => openEndpointSecret(keys, endpoint).then(hmacSha256Key));

/** The row with its secret opened (a row already opened is returned as it is). */
export const openEndpoint = async <T extends Pick<WebhookEndpoint, "id" | "secret">>(keys: Keys, row: T): Promise<T> => ({
  ...row,
  secret: await openEndpointSecret(keys, row),
});

export interface ResealCounts {
  /** Legacy plaintext values sealed now. */
  sealed: number;
  /** Values under an older key, sealed again with the current one. */
  resealed: number;
  /** Already under the current key. */
  current: number;
  /** Changed by someone else (a rotation) between our read and write: that write sealed it already. */
  skipped: number;
}

export interface ResealReport extends ResealCounts {
  /** The key id every secret is sealed with afterwards. */
  kid: string;
  /** The same counts per column (`place`). */
  columns: Record<string, ResealCounts>;
}

type ResealOptions = { organizationId?: string; pageSize?: number };

async function resealColumn(db: Db, keyring: Keyring, column: SealedColumn, opts: ResealOptions): Promise<ResealCounts> {
  const counts: ResealCounts = { sealed: 0, resealed: 0, current: 0, skipped: 0 };
  const write = sealedValueWriter(column);
  for await (const row of storedValues(db, column, opts)) {
    const context = `${column.place}:${row.id}`;
    const plain = await openSecret(keyring, row.value, context);
    if (sealedKid(row.value) === keyring.current) {
      counts.current++;
      continue;
    }
    const written = await write(db, row.id, row.value, await sealSecret(keyring, plain, context));
    if (!written) counts.skipped++;
    else if (isSealed(row.value)) counts.resealed++;
    else counts.sealed++;
  }
  return counts;
}

/**
 * Seals every plaintext secret and re-seals every secret under another key than the current
 * one (after a key rotation), column by column. Every value of every column is opened first, those
 * under the current key too, so a wrong key (or one missing from SECRETS_KEK) stops the run with
 * its error before anything is written. Each write is conditional on the value read, so a
 * concurrent rotation is never overwritten. Safe to run again: a second run finds everything current.
 */
export async function resealSecrets(
  db: Db,
  keyring: Keyring,
  columns: readonly SealedColumn[],
  opts: ResealOptions = {},
): Promise<ResealReport> {
  for (const column of columns)
    for await (const row of storedValues(db, column, opts)) await openSecret(keyring, row.value, `${column.place}:${row.id}`);
  const report: ResealReport = { kid: keyring.current, sealed: 0, resealed: 0, current: 0, skipped: 0, columns: {} };
  for (const column of columns) {
    const counts = await resealColumn(db, keyring, column, opts);
    report.columns[column.place] = counts;
    for (const k of ["sealed", "resealed", "current", "skipped"] as const) report[k] += counts[k];
  }
  return report;
}

/** How many stored secrets of a column each key id seals (`plaintext`: legacy values not sealed yet). */
export async function secretKeyUsage(db: Db, column: SealedColumn, organizationId?: string): Promise<Record<string, number>> {
  const rows = await countByKid(db, column, organizationId);
  return Object.fromEntries(rows.map((r) => [r.kid, Number(r.n)]));
}
