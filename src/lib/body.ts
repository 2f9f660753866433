// Reading a request body: at most `limit` bytes, strict UTF-8, and application/x-www-form-urlencoded
// decoded strictly. Used only by the edge guard (src/middleware/guards.ts), the one place bodies
// are read; routes get the bytes it read.
import { ApiError } from "./errors";

/**
 * After the limit is passed, the rest of the body is read and dropped, up to this many bytes.
 * A body left half-read (its reader cancelled or abandoned) leaves the HTTP/1.1 connection it
 * came on unusable, and under `wrangler dev` its sender gets wrangler's text/plain 503 instead of
 * our 413. Read to the end, the sender gets the 413 and the connection stays in step. 100 MiB is
 * about Cloudflare's own cap on a request body on the Free and Pro plans (100 MB; Business 200,
 * Enterprise 500). Past it the stream is cancelled (that connection closes).
 */
export const DRAIN_LIMIT = 100 * 1024 * 1024;

/**
 * Bytes read between two turns of the event loop. An isolate serves every request on one thread,
 * and a body whose bytes are already buffered is read without the loop ever waiting on I/O: while
 * several large bodies were read in one go (4 × 40 MiB: seconds), no other request was read, and
 * wrangler's proxy lost the requests it had sent on kept-alive connections the runtime closed as
 * idle meanwhile ("Your worker restarted mid-request", docs/errors.md). Yielding every MiB keeps
 * a large body's cost on its own request.
 */
export const YIELD_EVERY = 1024 * 1024;

/** Lets the event loop poll for I/O and timers before the next read. */
const nextTurn = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

export const tooLarge = (limit: number) =>
  new ApiError("payload_too_large", `The body exceeds ${limit} bytes, the most this route accepts.`);

/** Reads and drops what is left of a stream, up to DRAIN_LIMIT bytes; then cancels it. */
async function drain(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  let drained = 0;
  let sinceYield = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      drained += value.byteLength;
      if (drained > DRAIN_LIMIT) {
        await reader.cancel("request body too large");
        return;
      }
      sinceYield += value.byteLength;
      if (sinceYield >= YIELD_EVERY) {
        sinceYield = 0;
        await nextTurn();
      }
    }
  } catch {
    // The client went away: nothing left to keep in step.
  }
}

/**
 * The whole body, or a 413 when it passes `limit` bytes. A Content-Length over the limit is
 * refused without reading (the runtime skips a declared length itself); a chunked body is
 * counted as it arrives and, once over, drained (see DRAIN_LIMIT) before the 413 is thrown.
 * Only the bytes within the limit are kept; every YIELD_EVERY bytes the event loop gets a turn.
 */
export async function readLimited(req: Request, limit: number): Promise<Uint8Array | null> {
  if (!req.body) return null;
  const declared = req.headers.get("content-length");
  if (declared !== null && !req.headers.has("transfer-encoding") && Number(declared) > limit) throw tooLarge(limit);
  const reader = req.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  let sinceYield = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await drain(reader);
      throw tooLarge(limit);
    }
    parts.push(value);
    sinceYield += value.byteLength;
    if (sinceYield >= YIELD_EVERY) {
      sinceYield = 0;
      await nextTurn();
    }
  }
  if (parts.length === 1) return parts[0] as Uint8Array;
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    bytes.set(part, offset);
    offset += part.byteLength;
  }
  return bytes;
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/** UTF-8 to a string, or null when the bytes are not well-formed UTF-8 (RFC 8259 §8.1). */
export function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return null;
  }
}

const encoder = new TextEncoder();
const hexValue = (b: number | undefined): number =>
  b === undefined ? -1 : b >= 0x30 && b <= 0x39 ? b - 0x30 : b >= 0x41 && b <= 0x46 ? b - 0x37 : b >= 0x61 && b <= 0x66 ? b - 0x57 : -1;

/** `+` as space and percent-decoding as the URL standard does (a bad escape stays as written), then strict UTF-8. */
function decodeFormComponent(s: string): string | null {
  if (!s.includes("%")) return s.replace(/\+/g, " ");
  const bytes = encoder.encode(s);
  const out = new Uint8Array(bytes.length);
  let n = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i] as number;
    const hi = b === 0x25 ? hexValue(bytes[i + 1]) : -1;
    const lo = hi >= 0 ? hexValue(bytes[i + 2]) : -1;
    if (lo >= 0) {
      out[n++] = hi * 16 + lo;
      i += 2;
    } else out[n++] = b === 0x2b ? 0x20 : b;
  }
  return decodeUtf8(out.subarray(0, n));
}

/**
 * application/x-www-form-urlencoded pairs, or null when a name or value is not UTF-8 once
 * percent-decoded (URLSearchParams would quietly turn those bytes into U+FFFD).
 */
export function parseUrlEncoded(text: string): Array<[string, string]> | null {
  const pairs: Array<[string, string]> = [];
  for (const part of text.split("&")) {
    if (part === "") continue;
    const eq = part.indexOf("=");
    const name = decodeFormComponent(eq === -1 ? part : part.slice(0, eq));
    const value = decodeFormComponent(eq === -1 ? "" : part.slice(eq + 1));
    if (name === null || value === null) return null;
    pairs.push([name, value]);
  }
  return pairs;
}

/**
 * A multipart/form-data body read into its fields, or `400 validation_failed` saying what to send
 * (`expected`: "the document in the field `file`") when it is malformed.
 */
export async function readMultipart(request: Request, expected: string): Promise<FormData> {
  try {
    return await request.formData();
  } catch {
    throw new ApiError("validation_failed", `The multipart body is malformed: send multipart/form-data with ${expected}.`);
  }
}
