// What makes a QStash callback one that has been acted on already (src/routes/public/qstash/ asks
// before any attempt). Two things, checked and claimed in one Redis script, so two copies of one
// callback arriving together cannot both go:
// - The signature: its `jti` is unique to one signature for its whole life (QStash signs every call
//   afresh, retries included). A `jti` seen before is a replayed request, whatever its headers say;
//   it is remembered until the signature expires (then the signature no longer verifies anyway).
// - The message: `Upstash-Message-Id` is the same on every retry of one message and `Upstash-Retried`
//   counts them. A call numbered no higher than one already claimed is a redelivery of an attempt
//   already made (QStash is at-least-once): no new attempt. Once a call has finished the message
//   (2xx to QStash), its answer is kept, and any later call of that message gets it again.
// Those two headers are not signed, but a request can only carry a fresh `jti` if QStash signed it.
import type { Redis } from "@upstash/redis/cloudflare";

/** How long a message's state is kept: longer than QStash's longest schedule of retries (about 31 h for 5). */
export const MESSAGE_STATE_SECONDS = 7 * 24 * 3600;
/** The Receiver's clock tolerance (seconds), which a signature's life is extended by. */
export const CLOCK_TOLERANCE_SECONDS = 5;

export interface CallbackAnswer {
  ok: boolean;
  statusCode: number | null;
}

export type Claim =
  | { verdict: "go" }
  /** The same signature was presented before: a replayed request. */
  | { verdict: "replayed" }
  /** This retry (or a later one) of the message was claimed already; `retried` is the highest claimed. */
  | { verdict: "made"; retried: number }
  /** The message was finished; this is what it was answered. */
  | { verdict: "done"; answer: CallbackAnswer };

// KEYS[1] the signature's key, KEYS[2] the message's; ARGV[1] the signature's remaining life (s),
// ARGV[2] Upstash-Retried, ARGV[3] the message state's life (s). A message's state is the highest
// retry number claimed, or its final answer (JSON).
const CLAIM_SCRIPT = `
if not redis.call('SET', KEYS[1], '1', 'NX', 'EX', tonumber(ARGV[1])) then return {'replayed', ''} end
local state = redis.call('GET', KEYS[2])
if state and string.sub(state, 1, 1) == '{' then return {'done', state} end
if state and tonumber(state) >= tonumber(ARGV[2]) then return {'made', state} end
redis.call('SET', KEYS[2], ARGV[2], 'EX', tonumber(ARGV[3]))
return {'go', ''}`;

const signatureKey = (jti: string) => `qstash:jti:${jti}`;
const messageKey = (messageId: string) => `qstash:msg:${messageId}`;

export interface CallbackIdentity {
  /** The verified signature's `jti`. */
  jti: string;
  /** The verified signature's `exp` (seconds since the epoch). */
  expiresAt: number;
  /** `Upstash-Message-Id`; without it, the signature stands for the message. */
  messageId: string | null;
  /** `Upstash-Retried`: 0 for the first call of a message. */
  retried: number;
}

/** Claims the callback: "go" exactly once per signature and per (message, retry), atomically. */
export async function claimCallback(redis: Redis, id: CallbackIdentity): Promise<Claim> {
  const life = Math.max(1, id.expiresAt - Math.floor(Date.now() / 1000) + CLOCK_TOLERANCE_SECONDS + 1);
  const [verdict, state] = (await redis.eval(
    CLAIM_SCRIPT,
    [signatureKey(id.jti), messageKey(id.messageId ?? `jti:${id.jti}`)],
    [String(life), String(id.retried), String(MESSAGE_STATE_SECONDS)],
  )) as [string, string | number];
  switch (verdict) {
    case "go":
      return { verdict: "go" };
    case "replayed":
      return { verdict: "replayed" };
    case "made":
      return { verdict: "made", retried: Number(state) };
    case "done":
      return { verdict: "done", answer: parseAnswer(state) };
    default:
      throw new Error(`unexpected claim verdict ${verdict}`);
  }
}

/** Records the answer that ends the message: later calls of it get this answer and make no attempt. */
export async function finishCallback(redis: Redis, messageId: string | null, jti: string, answer: CallbackAnswer): Promise<void> {
  await redis.set(messageKey(messageId ?? `jti:${jti}`), JSON.stringify(answer), { ex: MESSAGE_STATE_SECONDS });
}

function parseAnswer(state: string | number | object): CallbackAnswer {
  // @upstash/redis may hand back the JSON already parsed.
  const value = typeof state === "string" ? (JSON.parse(state) as Partial<CallbackAnswer>) : (state as Partial<CallbackAnswer>);
  return { ok: value.ok === true, statusCode: typeof value.statusCode === "number" ? value.statusCode : null };
}

/** `Upstash-Retried` as a count; anything else is 0. */
export function retriedOf(header: string | undefined): number {
  const n = Number(header ?? "0");
  return Number.isInteger(n) && n >= 0 ? n : 0;
}

/**
 * The claims of a signature the Receiver has verified (its payload part, base64url JSON). QStash
 * always sets `jti` and `exp`; a signature without them cannot be told from its replay, so it is refused.
 */
export function signatureClaims(signature: string): { jti: string; expiresAt: number } | null {
  try {
    const payload = signature.split(".")[1] ?? "";
    const json = atob(
      payload
        .replace(/-/g, "+")
        .replace(/_/g, "/")
        .padEnd(Math.ceil(payload.length / 4) * 4, "="),
    );
    const claims = JSON.parse(json) as { jti?: unknown; exp?: unknown };
    if (typeof claims.jti !== "string" || claims.jti === "" || claims.jti.length > 200) return null;
    if (typeof claims.exp !== "number" || !Number.isFinite(claims.exp)) return null;
    return { jti: claims.jti, expiresAt: claims.exp };
  } catch {
    return null;
  }
}
