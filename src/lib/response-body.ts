// Reading what a customer's server answered (a webhook receiver, a tool's endpoint): at most
// `cap` bytes are kept, whatever the server sends or claims.

export interface CappedBody {
  /** The body's first `cap` bytes at most, decoded as UTF-8 (a character cut at the cap becomes U+FFFD). */
  text: string;
  /** The body was longer than `cap`: the rest was not read, and the connection is not reused. */
  over: boolean;
}

/**
 * A declared length the runtime's HTTP framing holds the body to: a Content-Length with neither
 * a transfer coding (chunked framing overrides the length) nor a content coding (fetch inflates
 * it, and a few hundred bytes of gzip can inflate to gigabytes).
 */
function framedLength(res: Response): number | null {
  const declared = res.headers.get("content-length");
  if (declared === null || !/^\d+$/.test(declared) || res.headers.has("transfer-encoding")) return null;
  const coding = res.headers.get("content-encoding");
  if (coding !== null && coding.trim().toLowerCase() !== "identity") return null;
  return Number(declared);
}

/**
 * The body, read up to `cap` bytes. An answer whose framed length is within the cap (the usual
 * short acknowledgement) is read whole in one call; any other is read chunk by chunk and
 * cancelled once past the cap.
 */
export async function readCapped(res: Response, cap: number): Promise<CappedBody> {
  const length = framedLength(res);
  if (res.body && length !== null && length <= cap) return { text: await res.text(), over: false };
  const { bytes, over } = await readBytesCapped(res, cap);
  return { text: new TextDecoder().decode(bytes), over };
}

/**
 * The body's bytes, read chunk by chunk up to `cap`; past it the read is cancelled and `over` set
 * (the bytes then hold the first `cap`). A declared length over the cap cancels before reading.
 */
export async function readBytesCapped(res: Response, cap: number): Promise<{ bytes: Uint8Array; over: boolean }> {
  if (!res.body) return { bytes: new Uint8Array(), over: false };
  const length = framedLength(res);
  if (length !== null && length > cap) {
    await res.body.cancel().catch(() => undefined);
    return { bytes: new Uint8Array(), over: true };
  }
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.length;
    if (size > cap) {
      await reader.cancel().catch(() => undefined);
      break;
    }
  }
  const all = new Uint8Array(Math.min(size, cap));
  let offset = 0;
  for (const c of chunks) {
    const part = c.subarray(0, all.length - offset);
    all.set(part, offset);
    offset += part.length;
  }
  return { bytes: all, over: size > cap };
}
