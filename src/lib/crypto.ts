// Hashing and token helpers on WebCrypto, so the same code runs in workerd and Node.
const encoder = new TextEncoder();
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

const hexDigest = async (algorithm: "SHA-1" | "SHA-256", input: string): Promise<string> => {
  const digest = await crypto.subtle.digest(algorithm, encoder.encode(input));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
};

export const sha256Hex = (input: string): Promise<string> => hexDigest("SHA-256", input);

/** SHA-1 hex: only for what a protocol names by it (a Redis script's EVALSHA), never for secrets. */
export const sha1Hex = (input: string): Promise<string> => hexDigest("SHA-1", input);

/** An HMAC-SHA256 key for `secret` (non-extractable, sign only): import once, sign many times. */
export const hmacSha256Key = (secret: string): Promise<CryptoKey> =>
  crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);

/** HMAC-SHA256 of `message` (text as UTF-8, or raw bytes) keyed with `secret` (or its imported key), lowercase hex. */
export async function hmacSha256Hex(secret: string | CryptoKey, message: string | Uint8Array): Promise<string> {
  const key = typeof secret === "string" ? await hmacSha256Key(secret) : secret;
  const mac = await crypto.subtle.sign("HMAC", key, typeof message === "string" ? encoder.encode(message) : message);
  return [...new Uint8Array(mac)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Whether two strings are equal, in time that depends only on their lengths. */
export const safeEqual = (a: string, b: string): boolean => timingSafeEqual(encoder.encode(a), encoder.encode(b));

/** Uniformly random base62 string (rejection sampling, no modulo bias). */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of crypto.getRandomValues(new Uint8Array(length * 2))) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

const toB64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const fromB64 = (s: string) => Uint8Array.from(atob(s), (ch) => ch.charCodeAt(0));

/** Constant-time comparison of two byte strings of any length. */
export function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < Math.max(a.length, b.length); i++) diff |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return diff === 0;
}

// Workers' WebCrypto caps PBKDF2 at 100,000 iterations; that is our cost.
const PBKDF2_ITERATIONS = 100_000;

async function pbkdf2(password: string, salt: Uint8Array, iterations: number): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(password), "PBKDF2", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations }, key, 256);
  return new Uint8Array(bits);
}

/** `pbkdf2-sha256$<iterations>$<salt b64>$<hash b64>` */
export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const hash = await pbkdf2(password, salt, PBKDF2_ITERATIONS);
  return `pbkdf2-sha256$${PBKDF2_ITERATIONS}$${toB64(salt)}$${toB64(hash)}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, iter, salt, hash] = stored.split("$");
  if (scheme !== "pbkdf2-sha256" || !iter || !salt || !hash) return false;
  const actual = await pbkdf2(password, fromB64(salt), Number(iter));
  return timingSafeEqual(actual, fromB64(hash));
}
