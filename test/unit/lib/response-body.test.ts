import { describe, expect, it } from "vitest";
import { readCapped } from "../../../src/lib/response-body";

const encoder = new TextEncoder();

/** A body of `chunks`, counting how many were pulled and whether the reader cancelled it. */
function streamed(chunks: string[], headers: Record<string, string> = {}) {
  const seen = { pulled: 0, cancelled: false };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks[seen.pulled];
      seen.pulled++;
      if (next === undefined) controller.close();
      else controller.enqueue(encoder.encode(next));
    },
    cancel() {
      seen.cancelled = true;
    },
  });
  return { res: new Response(body, { headers }), seen };
}

describe("readCapped", () => {
  it("reads a short answer whole, in one call when its length is declared", async () => {
    expect(await readCapped(new Response("ok", { headers: { "content-length": "2" } }), 10)).toEqual({ text: "ok", over: false });
    expect(await readCapped(new Response("0123456789"), 10)).toEqual({ text: "0123456789", over: false });
    expect(await readCapped(new Response(null, { status: 204 }), 10)).toEqual({ text: "", over: false });
  });

  it("keeps the first bytes of a longer answer, stops reading and cancels the rest", async () => {
    const { res, seen } = streamed(["01234", "56789", "abcde", "fghij", "klmno"]);
    expect(await readCapped(res, 12)).toEqual({ text: "0123456789ab", over: true });
    expect(seen.pulled).toBeLessThan(5);
    expect(seen.cancelled).toBe(true);
  });

  it.each([
    ["a content coding", { "content-length": "4", "content-encoding": "gzip" }],
    ["a transfer coding", { "content-length": "4", "transfer-encoding": "chunked" }],
    ["a length that is not a number", { "content-length": "4, 4" }],
  ])("does not trust a declared length with %s: the body is counted as it arrives", async (_, headers) => {
    const { res, seen } = streamed(["x".repeat(8), "y".repeat(8), "z".repeat(8)], headers);
    expect(await readCapped(res, 10)).toEqual({ text: `${"x".repeat(8)}yy`, over: true });
    expect(seen.cancelled).toBe(true);
  });

  it("takes 'identity' as no coding, and a body of exactly the cap as within it", async () => {
    const res = new Response("0123456789", { headers: { "content-length": "10", "content-encoding": "Identity" } });
    expect(await readCapped(res, 10)).toEqual({ text: "0123456789", over: false });
    const { res: streamedRes } = streamed(["01234", "56789"]);
    expect(await readCapped(streamedRes, 10)).toEqual({ text: "0123456789", over: false });
  });

  it("decodes UTF-8 across chunks, and a character cut by the cap becomes U+FFFD", async () => {
    const { res } = streamed(["h\u00e9", "llo \u{1F600}!"]);
    expect(await readCapped(res, 100)).toEqual({ text: "h\u00e9llo \u{1F600}!", over: false });
    // "é" is two bytes: a cap of 2 keeps "h" and half of it.
    const { res: cut } = streamed(["h\u00e9llo"]);
    expect(await readCapped(cut, 2)).toEqual({ text: "h\uFFFD", over: true });
  });
});
