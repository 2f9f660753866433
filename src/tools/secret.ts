// The secret that signs an agent's tool requests (docs/tools.md): `tss_` + 40 base62 characters,
// one per agent, sealed at rest with SECRETS_KEK exactly like webhook endpoint secrets
// (src/lib/secrets.ts), bound to its agent's row. Shown in full when it is created or rotated,
// `tss_...XXXXXX` otherwise. `npm run admin -- secrets reseal` re-seals them with the endpoints'
// (src/webhooks/secret-store.ts).
import { agents } from "../db/schema";
import type { AppConfig } from "../env";
import { randomBase62 } from "../lib/crypto";
import { keptPerSealedValue, openSecret, sealSecret } from "../lib/secrets";
import type { SealedColumn } from "../webhooks/secret-store";

type Keys = Pick<AppConfig, "SECRETS_KEK">;

export const TOOL_SECRET_PREFIX = "tss_";
export const newToolSecret = () => TOOL_SECRET_PREFIX + randomBase62(40);
export const maskToolSecret = (secret: string) => `${TOOL_SECRET_PREFIX}...${secret.slice(-6)}`;

/** Where the agents' tool secrets are stored (null until an agent first has a function tool). */
export const toolSecretColumn: SealedColumn = {
  place: "agents.tool_secret",
  table: agents,
  id: agents.id,
  value: agents.toolSecret,
  organizationId: agents.organizationId,
};

/** The additional data of an agent's sealed secret: a value copied into another row does not open. */
const place = (agentId: string) => `${toolSecretColumn.place}:${agentId}`;

export const sealToolSecret = (keys: Keys, agentId: string, secret: string): Promise<string> =>
  sealSecret(keys.SECRETS_KEK, secret, place(agentId));

export const openToolSecret = (keys: Keys, agentId: string, sealed: string): Promise<string> =>
  openSecret(keys.SECRETS_KEK, sealed, place(agentId));

/** Masked tool secrets an isolate keeps (by agent and sealed value); past this many, the oldest goes. */
const masks = keptPerSealedValue<string>(5000);

/**
 * The agent's secret as lists show it (`tss_...XXXXXX`), opened once per isolate and sealed value,
 * so a page of agents costs no decryption per row after the first; only the mask is kept.
 */
export const maskedToolSecret = (keys: Keys, agentId: string, sealed: string): Promise<string> =>
  masks(keys.SECRETS_KEK, `${agentId}:${sealed}`, () => openToolSecret(keys, agentId, sealed).then(maskToolSecret));
