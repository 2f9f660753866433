// The local stack's key-encryption key (SECRETS_KEK, docs/secrets.md). `npm run dev` keeps one
// in <DATA_DIR>/secrets-kek.txt (owner-only, like first-run.txt), made on the first start, so
// the webhook secrets sealed in the persisted database still open after a restart; the tests
// and the bench get a fresh key per run. SECRETS_KEK in the environment wins over the file.
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { writePrivate } from "./first-run";

/** `<kid>:<base64 of 32 random bytes>`, the format SECRETS_KEK takes. */
export const newSecretsKek = (kid: string) => `${kid}:${randomBytes(32).toString("base64")}`;

export const secretsKekFile = (dataDir: string) => join(dataDir, "secrets-kek.txt");

/** The persisted local key, or null when none was made yet. */
export function readLocalSecretsKek(dataDir: string): string | null {
  const file = secretsKekFile(dataDir);
  if (!existsSync(file)) return null;
  const line = readFileSync(file, "utf8")
    .split("\n")
    .map((l) => l.trim())
    .find((l) => l && !l.startsWith("#"));
  return line ?? null;
}

/** SECRETS_KEK from the environment, else the persisted local key, made on first use. */
export function localSecretsKek(dataDir: string): string {
  const fromEnv = process.env.SECRETS_KEK?.trim();
  if (fromEnv) return fromEnv;
  const existing = readLocalSecretsKek(dataDir);
  if (existing) return existing;
  const kek = newSecretsKek("local");
  writePrivate(
    secretsKekFile(dataDir),
    [
      "# The local stack's SECRETS_KEK: it seals the webhook signing secrets stored in this data folder.",
      "# Losing it makes them unreadable (rotate each endpoint's secret then). Never use it in production.",
      kek,
      "",
    ].join("\n"),
  );
  return kek;
}
