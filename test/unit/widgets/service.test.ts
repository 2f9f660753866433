// Pure parts of the widget: allowed origins, the schemas' normalisation, the LLM history, the
// webhook data of a session, the browser's audio conversions, and the bundle's size budget.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { chatEventData } from "../../../src/chats/runtime";
import type { Chat } from "../../../src/db/schema";
import { normalizeOrigin, originAllowed } from "../../../src/widgets/origins";
import { CHAT_INSTRUCTIONS, chatMessages, greetingOf, HISTORY_TURNS } from "../../../src/widgets/reply";
import { createWidgetSchema } from "../../../src/widgets/schema";
import { isWidgetTokenShaped, newWidgetToken } from "../../../src/widgets/service";
import { buildWidget, GZIP_BUDGET, WIDGET_OUT } from "../../../widget/build";
import { FRAME_SAMPLES, FrameBuffer, floatToPcm16, pcm16ToFloat, resample } from "../../../widget/src/pcm";

describe("allowed origins", () => {
  it.each([
    ["https://www.example.com", "https://www.example.com"],
    ["https://WWW.Example.COM/", "https://www.example.com"],
    ["https://example.com:443", "https://example.com"],
    ["http://example.com:80", "http://example.com"],
    ["http://localhost:3000", "http://localhost:3000"],
    ["http://127.0.0.1:8080", "http://127.0.0.1:8080"],
    ["https://*.example.com", "https://*.example.com"],
    ["https://*.Example.com:8443", "https://*.example.com:8443"],
    ["http://*.localhost", "http://*.localhost"],
    ["https://bücher.example", "https://xn--bcher-kva.example"],
  ])("normalizes %s to %s", (entry, expected) => {
    expect(normalizeOrigin(entry)).toBe(expected);
  });

  it.each([
    "",
    "*",
    "null",
    "example.com",
    "//example.com",
    "https://",
    "https://example.com/shop",
    "https://example.com/?a",
    "https://example.com#x",
    "ftp://example.com",
    "file:///etc",
    "https://u:p@example.com",
    "https://*.com",
    "https://*",
    "https://a.*.example.com",
    "https://example.com.",
    "javascript:alert(1)",
  ])("refuses %s", (entry) => {
    expect(normalizeOrigin(entry)).toBeNull();
  });

  const list = ["https://www.example.com", "https://*.shop.example", "http://localhost:3000"];
  it.each([
    ["https://www.example.com", true],
    ["https://a.shop.example", true],
    ["https://a.b.shop.example", true],
    ["http://localhost:3000", true],
    ["https://shop.example", false],
    ["https://evilshop.example", false],
    ["https://a.shop.example.evil.com", false],
    ["http://a.shop.example", false],
    ["https://a.shop.example:8443", false],
    ["http://localhost:3001", false],
    ["https://www.example.com/", false],
    ["null", false],
    ["", false],
    [undefined, false],
  ] as const)("%s allowed: %s", (origin, allowed) => {
    expect(originAllowed(origin, list)).toBe(allowed);
  });
});

describe("widget schemas and tokens", () => {
  it("fills defaults, expands colours and drops duplicate origins", () => {
    const parsed = createWidgetSchema.parse({
      agentId: "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77",
      name: " Shop ",
      allowedOrigins: ["https://a.example", "https://A.example/"],
      colors: { accent: "#ABC" },
    });
    expect(parsed).toMatchObject({ name: "Shop", mode: "chat", position: "bottom-right", title: null, greeting: null });
    expect(parsed.allowedOrigins).toEqual(["https://a.example"]);
    expect(parsed.colors).toEqual({ accent: "#aabbcc" });
  });

  it("makes tokens of the documented shape", () => {
    const a = newWidgetToken();
    expect(a).toMatch(/^wgt_[0-9A-Za-z]{32}$/);
    expect(isWidgetTokenShaped(a)).toBe(true);
    expect(newWidgetToken()).not.toBe(a);
    for (const bad of ["wgt_short", `sk-live-${"a".repeat(32)}`, `wgt_${"a".repeat(31)}!`]) expect(isWidgetTokenShaped(bad)).toBe(false);
  });
});

const turn = (role: "agent" | "user", text: string) => ({ role, text, at: "2026-01-01T00:00:00.000Z" });

describe("the agent's chat history", () => {
  it("puts the system prompt first, then the greeting and the turns as assistant and user", () => {
    const messages = chatMessages({ systemPrompt: "You sell tea." }, [turn("agent", "Hi!"), turn("user", "Prices?")]);
    expect(messages).toEqual([
      { role: "system", content: `You sell tea.\n\n${CHAT_INSTRUCTIONS}` },
      { role: "assistant", content: "Hi!" },
      { role: "user", content: "Prices?" },
    ]);
    expect(chatMessages({ systemPrompt: "  " }, [])[0]).toEqual({ role: "system", content: CHAT_INSTRUCTIONS });
  });

  it("keeps the latest turns only", () => {
    const turns = Array.from({ length: HISTORY_TURNS + 10 }, (_, i) => turn(i % 2 ? "agent" : "user", `m${i}`));
    const messages = chatMessages({ systemPrompt: "" }, turns);
    expect(messages).toHaveLength(HISTORY_TURNS + 1);
    expect(messages.at(-1)?.content).toBe(`m${HISTORY_TURNS + 9}`);
  });

  it("greets with the widget's greeting, else the agent's first message", () => {
    expect(greetingOf({ greeting: "Widget hi" }, { firstMessage: "Agent hi" })).toBe("Widget hi");
    expect(greetingOf({ greeting: null }, { firstMessage: "Agent hi" })).toBe("Agent hi");
    expect(greetingOf({ greeting: null }, { firstMessage: null })).toBeNull();
  });
});

describe("webhook data of a session", () => {
  const session = {
    id: "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77",
    organizationId: "o",
    channel: "widget",
    widgetId: "w",
    channelId: null,
    agentId: "a",
    agentName: "Desk",
    agentVersion: 4,
    endUserId: "v_12345678",
    endUserName: null,
    origin: "https://shop.example",
    status: "completed",
    endedReason: "inactivity",
    transcript: [turn("agent", "Hi"), turn("user", "Hello")],
    messageCount: 2,
    toolCallCount: 0,
    startedAt: new Date("2026-01-01T00:00:00Z"),
    lastActivityAt: new Date("2026-01-01T00:01:00Z"),
    endedAt: new Date("2026-01-01T00:31:00Z"),
    createdAt: new Date(),
    updatedAt: new Date(),
  } satisfies Chat;

  it("carries the chat fields, the transcript on completion and the session's metadata", () => {
    expect(chatEventData(session, true)).toEqual({
      chat: {
        id: session.id,
        status: "completed",
        agentId: "a",
        agentName: "Desk",
        agentVersion: 4,
        startedAt: "2026-01-01T00:00:00.000Z",
        endedAt: "2026-01-01T00:31:00.000Z",
        messageCount: 2,
        channelId: "w",
        endUserId: "v_12345678",
        endUserName: null,
      },
      transcript: {
        fullText: "Agent: Hi\nUser: Hello",
        turns: [
          { role: "agent", text: "Hi" },
          { role: "user", text: "Hello" },
        ],
      },
      metadata: { widgetId: "w", visitorId: "v_12345678", origin: "https://shop.example", endedReason: "inactivity" },
    });
    expect(chatEventData({ ...session, endedReason: null }, false)).toMatchObject({ transcript: null, metadata: { widgetId: "w" } });
  });
});

describe("the widget's audio conversions", () => {
  it("resamples 48 kHz to 16 kHz by averaging, and keeps the level", () => {
    const input = new Float32Array(4800).fill(0.5);
    const out = resample(input, 48_000, 16_000);
    expect(out).toHaveLength(1600);
    expect(out.every((s) => Math.abs(s - 0.5) < 1e-6)).toBe(true);
    expect(resample(new Float32Array(441), 44_100, 16_000)).toHaveLength(160);
    expect(resample(new Float32Array([0, 1]), 8_000, 16_000)).toEqual(new Float32Array([0, 0.5, 1, 1]));
  });

  it("converts floats to PCM16 little-endian and back, clipping", () => {
    const bytes = new Uint8Array(floatToPcm16(new Float32Array([0, 1, -1, 2, -2, 0.5])));
    const view = new DataView(bytes.buffer);
    expect([0, 1, 2, 3, 4, 5].map((i) => view.getInt16(i * 2, true))).toEqual([0, 32767, -32768, 32767, -32768, 16384]);
    const back = pcm16ToFloat(bytes.buffer);
    expect(back[2]).toBe(-1);
    expect(back[5]).toBeCloseTo(0.5, 3);
    expect(pcm16ToFloat(new Uint8Array(3).buffer)).toHaveLength(1);
  });

  it("hands out whole 20 ms frames", () => {
    const frames = new FrameBuffer();
    expect(frames.push(new Float32Array(300))).toHaveLength(0);
    const out = frames.push(new Float32Array(400));
    expect(out).toHaveLength(2);
    expect(out.every((f) => f.length === FRAME_SAMPLES)).toBe(true);
    expect(frames.push(new Float32Array(259))).toHaveLength(0);
    expect(frames.push(new Float32Array(1))).toHaveLength(1);
  });
});

describe("the widget bundle", () => {
  it("builds to one script under the gzipped budget, with one global", async () => {
    // Into a folder of its own: public/ is the running test worker's assets folder.
    const out = join(mkdtempSync(join(tmpdir(), "widget-")), "widget.js");
    const { bytes, gzipBytes } = await buildWidget(out);
    expect(gzipBytes).toBeLessThan(GZIP_BUDGET);
    expect(bytes).toBeGreaterThan(gzipBytes);
    expect(out).not.toBe(WIDGET_OUT);
    const code = readFileSync(out, "utf8");
    expect(gunzipSync(gzipSync(code)).toString()).toBe(code);
    // An IIFE: nothing leaks to the page's scope but window.ServiceWidget.
    expect(code.startsWith("(()=>{") || code.startsWith('"use strict";(()=>{')).toBe(true);
    expect(code).toContain("ServiceWidget");
  });
});
