// Streamed provider calls are metered like the others (an upper bound held before, the exact use
// settled after), and a stream we cancel (a barge-in, a discarded speculation) is charged only what
// was produced: the metering functions the call runtime uses, on the stack's database and against
// the stack's provider sandbox on its realistic profile (so there is time to cancel mid-stream).
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { withLatencyProfile } from "../../../dev/sandbox/latency";
import { creditHolds, organizations, usageEvents } from "../../../src/db/schema";
import { parseEnv } from "../../../src/env";
import { agentReplyStream, promptTokensEstimate } from "../../../src/metering/agent-reply";
import { reconcileCredits } from "../../../src/metering/meter";
import type { Payer } from "../../../src/metering/metered";
import { costOf } from "../../../src/metering/prices";
import { SESSION_HOLD_CHARS, speechSession, synthesizeStreamed } from "../../../src/metering/speech";
import { Cartesia } from "../../../src/providers/cartesia";
import { ProviderError } from "../../../src/providers/http";
import { providersOf, ttsProvider } from "../../../src/providers/registry";
import type { SpeechStream } from "../../../src/providers/types";
import { createWorkspace, stack, testDb, type Workspace } from "../../support/harness";
import { nodeConnect } from "../../support/ws-connect";

const config = () => {
  const vars = stack().vars;
  return parseEnv({ ...vars, OPENAI_BASE_URL: withLatencyProfile(vars.OPENAI_BASE_URL as string, "realistic") });
};
const payer = (ws: Workspace): Payer => ({ organizationId: ws.organizationId, apiKeyId: null, method: "CALL", endpoint: "/v1/calls/x" });
const events = (ws: Workspace) => testDb().select().from(usageEvents).where(eq(usageEvents.organizationId, ws.organizationId));
const balance = async (ws: Workspace) =>
  Number(
    (await testDb().select({ m: organizations.creditsMicro }).from(organizations).where(eq(organizations.id, ws.organizationId)))[0]?.m,
  );
const closed = async (ws: Workspace) => {
  expect(await testDb().select().from(creditHolds).where(eq(creditHolds.organizationId, ws.organizationId))).toEqual([]);
  expect((await reconcileCredits(testDb(), ws.organizationId))[0]?.differenceMicro).toBe(0);
};
const agent = { llmModel: "gpt-4o-mini", temperature: 0.7 };
const messages = [
  { role: "system" as const, content: "You are a receptionist." },
  { role: "user" as const, content: "Hi, I would like to book an appointment for Tuesday morning please." },
];

describe("a streamed reply", () => {
  it("finished: charged the provider's usage, exactly once", async () => {
    const ws = await createWorkspace();
    const start = await balance(ws);
    const pieces: string[] = [];
    const reply = await agentReplyStream(testDb(), providersOf(config()), payer(ws), agent, messages, 300, (t) => pieces.push(t));
    expect(reply.text).toBe(pieces.join(""));
    expect(reply.text).toMatch(/^You said: Hi, I would like/);
    expect(reply.usage).not.toBeNull();
    const [row] = await events(ws);
    expect(row).toMatchObject({ status: 200, errorCode: null, quantity: reply.usage?.total_tokens, completionTokens: pieces.length });
    expect(start - (await balance(ws))).toBe(costOf("chat", "gpt-4o-mini", reply.usage?.total_tokens ?? 0));
    await closed(ws);
  });

  it("cancelled mid-stream: charged the prompt (estimated) and the pieces received, logged 499 canceled", async () => {
    const ws = await createWorkspace();
    const ac = new AbortController();
    let pieces = 0;
    const err = await agentReplyStream(
      testDb(),
      providersOf(config()),
      payer(ws),
      agent,
      messages,
      300,
      () => {
        if (++pieces === 3) ac.abort();
      },
      ac.signal,
    ).catch((e: unknown) => e);
    expect((err as ProviderError).failure).toBe("canceled");
    const [row] = await events(ws);
    const expected = promptTokensEstimate(messages) + 3;
    expect(row).toMatchObject({ status: 499, errorCode: "canceled", quantity: expected, completionTokens: 3 });
    expect(row?.costMicro).toBe(costOf("chat", "gpt-4o-mini", expected));
    await closed(ws);
  });

  it("cancelled before its first token: nothing charged", async () => {
    const ws = await createWorkspace();
    const start = await balance(ws);
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    const err = await agentReplyStream(testDb(), providersOf(config()), payer(ws), agent, messages, 300, () => undefined, ac.signal).catch(
      (e: unknown) => e,
    );
    expect((err as ProviderError).failure).toBe("canceled");
    const [row] = await events(ws);
    expect(row).toMatchObject({ status: 499, errorCode: "canceled", quantity: 0, costMicro: 0 });
    expect(await balance(ws)).toBe(start);
    await closed(ws);
  });
});

describe("streamed speech", () => {
  const request = { text: "Tuesday morning works for me.", voice: "alloy", model: "tts-1", format: "pcm" as const };

  it("finished: the characters charged once; cancelled after its first audio: charged; before: not", async () => {
    const ws = await createWorkspace();
    const start = await balance(ws);
    const provider = ttsProvider(config(), "openai");
    let bytes = 0;
    const got = await synthesizeStreamed(testDb(), payer(ws), provider, request, (b) => {
      bytes += b.length;
    });
    expect(got).toBe(bytes);
    expect(bytes).toBeGreaterThan(0);
    const cost = costOf("tts", "tts-1", [...request.text].length);
    expect(start - (await balance(ws))).toBe(cost);

    const after = new AbortController();
    const cut = await synthesizeStreamed(testDb(), payer(ws), provider, request, () => after.abort(), after.signal).catch(
      (e: unknown) => e,
    );
    expect(cut).toBeInstanceOf(ProviderError);
    expect(start - (await balance(ws))).toBe(2 * cost);

    const before = new AbortController();
    setTimeout(() => before.abort(), 50);
    const none = await synthesizeStreamed(testDb(), payer(ws), provider, request, () => undefined, before.signal).catch((e: unknown) => e);
    expect((none as ProviderError).failure).toBe("canceled");
    expect(start - (await balance(ws))).toBe(2 * cost);
    const rows = await events(ws);
    expect(rows.map((r) => [r.status, r.errorCode]).sort()).toEqual([
      [200, null],
      [499, "canceled"],
      [499, "canceled"],
    ]);
    await closed(ws);
  });
});

describe("input-streamed speech (one Cartesia context fed text as it is written)", () => {
  const KATIE = "f786b574-daa5-4673-aa0c-cbe3e8534c02";
  const CALL = { timeoutMs: 10_000, retries: 1 };
  const request = { text: "", voice: KATIE, model: "sonic-3", format: "pcm" as const };
  /** The stack's Cartesia (the provider sandbox), its socket opened from Node. */
  const cartesia = (profile?: "realistic") => {
    const { vars } = stack();
    const base = vars.CARTESIA_BASE_URL as string;
    return new Cartesia(profile ? withLatencyProfile(base, profile) : base, vars.CARTESIA_API_KEY as string, CALL, nodeConnect);
  };
  const drain = async (session: SpeechStream, onChunk: () => void = () => undefined) => {
    let bytes = 0;
    for await (const chunk of session.audio) {
      bytes += chunk.length;
      onChunk();
    }
    return bytes;
  };

  it("finished: the characters sent charged once, in one row; cancelled after its first audio: what was sent; before: nothing", async () => {
    const ws = await createWorkspace();
    const start = await balance(ws);
    const provider = cartesia("realistic");
    const pieces = ["Tuesday morning,", " works for me."];
    const whole = speechSession(testDb(), payer(ws), provider, request, new AbortController().signal);
    for (const piece of pieces) whole.push(piece);
    whole.end();
    expect(await drain(whole)).toBeGreaterThan(0);
    const sent = [...pieces.join("")].length;
    expect(start - (await balance(ws))).toBe(costOf("tts", "sonic-3", sent));

    const after = new AbortController();
    const cut = speechSession(testDb(), payer(ws), provider, request, after.signal);
    const first = "This sentence is long enough to take several chunks of audio,";
    cut.push(first);
    const err = await drain(cut, () => {
      after.abort();
      cut.push(" and this part is never sent.");
    }).catch((e: unknown) => e);
    expect((err as ProviderError).failure).toBe("canceled");

    const before = new AbortController();
    const none = speechSession(testDb(), payer(ws), provider, request, before.signal);
    none.push("Never heard.");
    setTimeout(() => before.abort(), 20);
    expect(((await drain(none).catch((e: unknown) => e)) as ProviderError).failure).toBe("canceled");

    const rows = await events(ws);
    expect(rows.map((r) => [r.status, r.errorCode, r.quantity]).sort()).toEqual([
      [200, null, sent],
      [499, "canceled", 0],
      [499, "canceled", [...first].length],
    ]);
    expect(start - (await balance(ws))).toBe(costOf("tts", "sonic-3", sent) + costOf("tts", "sonic-3", [...first].length));
    await closed(ws);
  }, 30_000);

  it("a reply longer than one hold takes another before more is sent: each charged what was sent under it", async () => {
    const ws = await createWorkspace();
    const session = speechSession(testDb(), payer(ws), cartesia(), request, new AbortController().signal);
    const pieces = Array.from(
      { length: 12 },
      (_, i) => `${i ? " " : ""}Line ${i + 1} of the list: ${"and then some more words ".repeat(3).trim()},`,
    );
    for (const piece of pieces) session.push(piece);
    session.end();
    await drain(session);
    const rows = (await events(ws)).filter((r) => r.status === 200);
    const total = pieces.reduce((n, p) => n + [...p].length, 0);
    expect(total).toBeGreaterThan(SESSION_HOLD_CHARS);
    expect(rows).toHaveLength(2);
    expect(rows.reduce((n, r) => n + r.quantity, 0)).toBe(total);
    expect(rows.every((r) => r.quantity <= SESSION_HOLD_CHARS)).toBe(true);
    await closed(ws);
  }, 30_000);
});
