// The secret that signs an agent's tool requests (docs/tools.md): `tss_` + 40 base62 characters,
// one per agent, sealed at rest with SECRETS_KEK exactly like webhook endpoint secrets
// (src/lib/secrets.ts), bound to its agent's row. Shown in full when it is created or rotated,
// `tss_...XXXXXX` otherwise.
import type { AppConfig } from "../env";
import { randomBase62 } from "../lib/crypto";
import { openSecret, sealSecret } from "../lib/secrets";

type Keys = Pick<AppConfig, "SECRETS_KEK">;

export const TOOL_SECRET_PREFIX = "tss_";
export const newToolSecret = () => TOOL_SECRET_PREFIX + randomBase62(40);
export const maskToolSecret = (secret: string) => `${TOOL_SECRET_PREFIX}...${secret.slice(-6)}`;

/** The additional data of an agent's sealed secret: a value copied into another row does not open. */
const place = (agentId: string) => `agents.tool_secret:${agentId}`;

export const sealToolSecret = (keys: Keys, agentId: string, secret: string): Promise<string> =>
  sealSecret(keys.SECRETS_KEK, secret, place(agentId));

export const openToolSecret = (keys: Keys, agentId: string, sealed: string): Promise<string> =>
  openSecret(keys.SECRETS_KEK, sealed, place(agentId));
