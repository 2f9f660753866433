// The input guard's parts, without a worker: the one string check (findBadText over parsed JSON),
// strict UTF-8 and form decoding, reading a body within a limit (and draining what is over), the
// per-route limits, and the instants list filters accept.
import { describe, expect, it } from "vitest";
import { DRAIN_LIMIT, decodeUtf8, parseUrlEncoded, readLimited, YIELD_EVERY } from "../../../src/lib/body";
import { ApiError } from "../../../src/lib/errors";
import { findBadText, instant } from "../../../src/lib/fields";
import { pageQuerySchema } from "../../../src/lib/pagination";
import { bodyLimitFor, CAMPAIGN_BODY_LIMIT, CHAT_BODY_LIMIT, JSON_BODY_LIMIT, UPLOAD_BODY_LIMIT } from "../../../src/middleware/guards";
import { WIDGET_BODY_LIMIT } from "../../../src/routes/widget/shared";

describe("findBadText (item 1)", () => {
  it("finds NUL and lone surrogates anywhere in a parsed body, naming the path", () => {
    expect(findBadText({ model: "x\u0000" })).toEqual({ path: "model", message: "must not contain NUL (U+0000)" });
    expect(findBadText({ messages: [{ role: "user", content: "ok" }, { content: "a\uD800" }] })).toEqual({
      path: "messages.1.content",
      message: "must be well-formed Unicode (no lone surrogates)",
    });
    expect(findBadText({ a: { b: [[["\uDC00x"]]] } })?.path).toBe("a.b.0.0.0");
    expect(findBadText("\u0000")?.path).toBe("(root)");
    expect(findBadText("\u0000", "token")?.path).toBe("token");
  });

  it("checks property names, and does not echo the bad character", () => {
    const issue = findBadText({ meta: { "k\u0000": 1 } });
    expect(issue).toEqual({ path: "meta.k\uFFFD", message: "property name must not contain NUL (U+0000)" });
  });

  it("passes well-formed text: pairs, emoji, controls other than NUL, and non-strings", () => {
    expect(findBadText({ a: "😀 \uD83D\uDE00 名前 \t\n", n: 1, b: true, z: null, l: [1, "x"] })).toBeNull();
  });

  it("walks a deeply nested body without overflowing the stack", () => {
    let deep: unknown = "\u0000";
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(findBadText(deep)?.message).toBe("must not contain NUL (U+0000)");
  });
});

describe("strict UTF-8 (item 4)", () => {
  it("decodes well-formed UTF-8 and refuses anything else", () => {
    expect(decodeUtf8(new TextEncoder().encode("Zoë 😀"))).toBe("Zoë 😀");
    for (const bytes of [[0xff], [0xfe], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xe2, 0x82], [0xf4, 0x90, 0x80, 0x80]]) {
      expect(decodeUtf8(new Uint8Array(bytes)), bytes.join(" ")).toBeNull();
    }
  });

  it("decodes urlencoded forms as URLSearchParams does, but refuses bytes that are not UTF-8", () => {
    const text = "a=1&b=x+y&c=%C3%A9%F0%9F%98%80&d&e=100%&f=%zz&&g=%00";
    expect(parseUrlEncoded(text)).toEqual([...new URLSearchParams(text)]);
    expect(parseUrlEncoded("name=%FF%FE")).toBeNull();
    expect(parseUrlEncoded("%ED%A0%80=1")).toBeNull();
  });
});

/** A stream of `chunks` (their sizes in bytes), counting how much was pulled from it. */
const streamOf = (chunks: number[]) => {
  let i = 0;
  let pulled = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i >= chunks.length) return controller.close();
      const n = chunks[i++] as number;
      pulled += n;
      controller.enqueue(new Uint8Array(n).fill(0x61));
    },
    cancel() {
      i = chunks.length;
    },
  });
  return { stream, pulled: () => pulled };
};
const chunked = (stream: ReadableStream<Uint8Array>) =>
  new Request("http://x/", { method: "POST", body: stream, duplex: "half", headers: { "transfer-encoding": "chunked" } } as RequestInit);

describe("readLimited (items 5 and 6)", () => {
  it("returns a body within the limit whole, declared or chunked", async () => {
    expect((await readLimited(new Request("http://x/", { method: "POST", body: "abc" }), 3))?.byteLength).toBe(3);
    const { stream } = streamOf([2, 2, 2]);
    expect((await readLimited(chunked(stream), 6))?.byteLength).toBe(6);
    expect(await readLimited(new Request("http://x/"), 10)).toBeNull();
  });

  it("refuses a declared length over the limit without reading", async () => {
    const req = new Request("http://x/", { method: "POST", body: "abcd", headers: { "content-length": "4" } });
    await expect(readLimited(req, 3)).rejects.toMatchObject({ code: "payload_too_large" });
    expect(req.bodyUsed).toBe(false);
  });

  it("drains a chunked body over the limit to its end before the 413, so the connection stays in step", async () => {
    const { stream, pulled } = streamOf(Array(20).fill(16 * 1024));
    const err = await readLimited(chunked(stream), 64 * 1024).catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.code).toBe("payload_too_large");
    expect(pulled()).toBe(20 * 16 * 1024);
  });

  it("stops draining after DRAIN_LIMIT bytes and cancels the stream", async () => {
    const chunk = 1024 * 1024;
    const { stream, pulled } = streamOf(Array(DRAIN_LIMIT / chunk + 20).fill(chunk));
    await expect(readLimited(chunked(stream), chunk)).rejects.toMatchObject({ code: "payload_too_large" });
    // The limit's chunk, the one over it, the one over DRAIN_LIMIT, and one the stream pulled ahead.
    expect(pulled()).toBeLessThanOrEqual(DRAIN_LIMIT + 4 * chunk);
  });

  it("drains at least 40 MiB (issue 29 item 6: those senders get the 413, not a cut connection)", () => {
    expect(DRAIN_LIMIT).toBeGreaterThanOrEqual(40 * 1024 * 1024 + 1024 * 1024);
  });

  it.each([
    ["within the limit", 16 * YIELD_EVERY],
    ["over the limit, drained", YIELD_EVERY / 4],
  ])("gives the event loop a turn every YIELD_EVERY bytes while reading a body %s", async (_, limit) => {
    // Buffered bytes are read without waiting on I/O; without these turns a large body would hold
    // up every other request of the isolate until it was read (issue 29 item 6).
    const { stream } = streamOf(Array(16).fill(YIELD_EVERY / 2));
    let turns = 0;
    let reading = true;
    const tick = () => {
      if (!reading) return;
      turns++;
      setTimeout(tick, 0);
    };
    setTimeout(tick, 0);
    await readLimited(chunked(stream), limit).catch((e: ApiError) => expect(e.code).toBe("payload_too_large"));
    reading = false;
    expect(turns).toBeGreaterThanOrEqual(6);
  });
});

describe("bodyLimitFor (item 6)", () => {
  it("gives every path a limit: uploads, chat, the widget, and 256 KiB for all others", () => {
    expect(bodyLimitFor("/v1/stt")).toBe(UPLOAD_BODY_LIMIT);
    expect(bodyLimitFor("/v1/audio/transcriptions")).toBe(UPLOAD_BODY_LIMIT);
    expect(bodyLimitFor("/v1/chat/completions")).toBe(CHAT_BODY_LIMIT);
    expect(bodyLimitFor("/widget/v1/chat")).toBe(WIDGET_BODY_LIMIT);
    // A new campaign's recipients, from the API or the dashboard's form; the dashboard's other campaign forms are small.
    expect(bodyLimitFor("/v1/campaigns")).toBe(CAMPAIGN_BODY_LIMIT);
    expect(bodyLimitFor("/dashboard/campaigns")).toBe(CAMPAIGN_BODY_LIMIT);
    expect(bodyLimitFor("/dashboard/campaigns/x/start")).toBe(JSON_BODY_LIMIT);
    for (const path of ["/webhooks/x/deliveries", "/dashboard/agents", "/telephony/twilio/status/x", "/health", "/nowhere"]) {
      expect(bodyLimitFor(path)).toBe(JSON_BODY_LIMIT);
    }
  });
});

describe("instants of list filters (item 3)", () => {
  it("accepts years 0001 to 9999 in UTC, whatever the offset", () => {
    for (const ok of ["0001-01-01T00:00:00Z", "9999-12-31T23:59:59.999Z", "2025-01-15T09:30:00+02:00", "0001-01-01T01:00:00+01:00"]) {
      expect(instant().safeParse(ok).success, ok).toBe(true);
    }
    for (const bad of ["0000-01-01T00:00:00Z", "0001-01-01T00:30:00+01:00", "9999-12-31T23:59:59-00:01", "yesterday"]) {
      expect(instant().safeParse(bad).success, bad).toBe(false);
    }
  });

  it("is what pageQuerySchema parses createdAfter and createdBefore with", () => {
    const out = pageQuerySchema.safeParse({ createdAfter: "0000-01-01T00:00:00Z" });
    expect(out.success).toBe(false);
    expect(out.error?.issues.map((i) => i.path.join("."))).toEqual(["createdAfter"]);
    expect(pageQuerySchema.safeParse({ createdBefore: "0000-06-01T00:00:00Z" }).success).toBe(false);
    expect(pageQuerySchema.safeParse({ createdAfter: "0001-01-01T00:00:00Z", createdBefore: "9999-12-31T23:59:59Z" }).success).toBe(true);
  });
});
