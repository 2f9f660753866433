// Secrets we must keep readable (webhook signing secrets), sealed at rest with AES-256-GCM on
// WebCrypto under a key-encryption key from the worker secret SECRETS_KEK (docs/secrets.md).
//
// SECRETS_KEK is a comma-separated list of `<kid>:<base64 of 32 random bytes>`: the first key
// seals, every key opens (rotation: put the new key first, re-seal, then drop the old one).
// A sealed value is `v1:<kid>:<iv>:<ciphertext+tag>` (base64url, 12-byte random IV), in the same
// text column the plaintext used to live in. The additional data binds it to its place (table,
// column, row id), so a value copied into another row does not open. A value that does not
// start with `v1:` is a legacy plaintext row: it opens as itself until it is re-sealed.
import { ApiError } from "./errors";

const VERSION = "v1";
const KID = /^[A-Za-z0-9_-]{1,32}$/;
const KEY_BYTES = 32;
const IV_BYTES = 12;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

const toB64Url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

function fromB64(s: string): Uint8Array | null {
  const std = s.replace(/-/g, "+").replace(/_/g, "/");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(std)) return null;
  try {
    return Uint8Array.from(atob(std.padEnd(Math.ceil(std.length / 4) * 4, "=")), (ch) => ch.charCodeAt(0));
  } catch {
    return null;
  }
}

/** A SECRETS_KEK that does not parse; the message names the entry, never the key material. */
export class KeyringError extends Error {}

/**
 * The configured keys. Key bytes live in private fields only, so a config object that is
 * logged or serialised by mistake shows no key (JSON.stringify gives `{}` for this class).
 */
export class Keyring {
  readonly #raw = new Map<string, Uint8Array>();
  readonly #imported = new Map<string, Promise<CryptoKey>>();
  /** The key id new values are sealed with (the first in the list). */
  readonly current: string;

  constructor(spec: string) {
    const entries = spec
      .split(",")
      .map((e) => e.trim())
      .filter(Boolean);
    if (entries.length === 0) throw new KeyringError("SECRETS_KEK holds no key: expected <kid>:<base64 key>[,<kid>:<base64 key>…]");
    entries.forEach((entry, i) => {
      const colon = entry.indexOf(":");
      const kid = colon > 0 ? entry.slice(0, colon) : "";
      if (!KID.test(kid)) {
        throw new KeyringError(`SECRETS_KEK entry ${i + 1}: the key id must be 1-32 of A-Z a-z 0-9 _ - followed by ":"`);
      }
      const bytes = fromB64(entry.slice(colon + 1));
      if (!bytes || bytes.length !== KEY_BYTES) {
        throw new KeyringError(`SECRETS_KEK key "${kid}": expected base64 of exactly ${KEY_BYTES} bytes (openssl rand -base64 32)`);
      }
      if (this.#raw.has(kid)) throw new KeyringError(`SECRETS_KEK names the key id "${kid}" twice`);
      this.#raw.set(kid, bytes);
    });
    this.current = this.kids[0] as string;
  }

  /** Every key id, the sealing one first. */
  get kids(): string[] {
    return [...this.#raw.keys()];
  }

  has(kid: string): boolean {
    return this.#raw.has(kid);
  }

  /** The AES-GCM key of a key id, imported once per keyring (non-extractable). */
  key(kid: string): Promise<CryptoKey> {
    let key = this.#imported.get(kid);
    if (!key) {
      const raw = this.#raw.get(kid);
      if (!raw) throw new Error(`no key ${kid}`);
      key = crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt", "decrypt"]);
      this.#imported.set(kid, key);
    }
    return key;
  }

  toJSON(): string {
    return `Keyring(${this.kids.join(",")})`;
  }
}

/** Whether a stored value is sealed (else it is a legacy plaintext value). */
export const isSealed = (stored: string): boolean => stored.startsWith(`${VERSION}:`);

/** The key id a sealed value names; null for plaintext or a malformed value. */
export const sealedKid = (stored: string): string | null => (isSealed(stored) ? (stored.split(":")[1] ?? null) : null);

/** Seals a secret with the current key. `context` names its place, e.g. `webhook_endpoints.secret:<id>`. */
export async function sealSecret(keyring: Keyring, plaintext: string, context: string): Promise<string> {
  const kid = keyring.current;
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const sealed = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: encoder.encode(`${VERSION}:${kid}:${context}`) },
    await keyring.key(kid),
    encoder.encode(plaintext),
  );
  return `${VERSION}:${kid}:${toB64Url(iv)}:${toB64Url(new Uint8Array(sealed))}`;
}

/**
 * A stored value that cannot be opened with this deployment's keys: a configuration error
 * (500 `misconfigured`), whose message names the key id and the place, never a secret.
 */
function unopenable(message: string): ApiError {
  // ApiErrors are not logged by the error handler: this one must reach the operator.
  console.error(JSON.stringify({ level: "error", error: "secret_unopenable", message }));
  return new ApiError("misconfigured", message);
}

/** Opens a stored value: a sealed one with its key, a legacy plaintext one as itself. */
export async function openSecret(keyring: Keyring, stored: string, context: string): Promise<string> {
  if (!isSealed(stored)) return stored;
  const [, kid = "", ivPart = "", dataPart = "", ...rest] = stored.split(":");
  const iv = fromB64(ivPart);
  const data = fromB64(dataPart);
  const place = context.replace(/:.*$/, "");
  if (rest.length || !iv || iv.length !== IV_BYTES || !data || data.length < 16) {
    throw unopenable(`A stored secret (${place}) is not a well-formed sealed value.`);
  }
  if (!keyring.has(kid)) {
    throw unopenable(
      `A stored secret (${place}) is sealed with key id "${kid}", which SECRETS_KEK does not hold (it holds ${keyring.kids.map((k) => `"${k}"`).join(", ")}). Add that key back to SECRETS_KEK.`,
    );
  }
  let opened: ArrayBuffer;
  try {
    opened = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv, additionalData: encoder.encode(`${VERSION}:${kid}:${context}`) },
      await keyring.key(kid),
      data,
    );
  } catch {
    throw unopenable(
      `A stored secret (${place}) does not open with the key "${kid}" of SECRETS_KEK: the key is not the one it was sealed with, or the stored value was altered.`,
    );
  }
  return decoder.decode(opened);
}

/**
 * What an isolate derives from sealed values and keeps (an endpoint's signing key, an agent's
 * masked secret), per keyring and value: made once, at most `limit` kept (the oldest dropped), a
 * failure not kept. A rotated secret is a new sealed value, so what came of the old one is never
 * used again.
 */
export function keptPerSealedValue<T>(limit: number): (keyring: Keyring, id: string, make: () => Promise<T>) => Promise<T> {
  const kept = new WeakMap<Keyring, Map<string, Promise<T>>>();
  return (keyring, id, make) => {
    let values = kept.get(keyring);
    if (!values) {
      values = new Map();
      kept.set(keyring, values);
    }
    const found = values.get(id);
    if (found) return found;
    const value = make();
    const inKeyring = values;
    value.catch(() => inKeyring.delete(id));
    values.set(id, value);
    if (values.size > limit) values.delete(values.keys().next().value as string);
    return value;
  };
}
