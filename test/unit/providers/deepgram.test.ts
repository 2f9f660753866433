// The Deepgram adapter's URLs (Nova on /v1/listen, Flux on /v2/listen, by model name), its
// registry entry, and how it reads a socket it did not open itself: scripted server messages
// through an injected connector (the sandbox tests, test/dev/sandbox/deepgram.test.ts, run it
// against Deepgram's protocol end to end).
import { describe, expect, it } from "vitest";
import type { AppConfig } from "../../../src/env";
import { Deepgram, listenUrl } from "../../../src/providers/deepgram";
import { streamingSttProvider } from "../../../src/providers/registry";
import type { ProviderSocket, SocketConnector } from "../../../src/providers/socket";
import type { SttStreamEvent, SttStreamOptions } from "../../../src/providers/types";

describe("Deepgram adapter: the listen URL", () => {
  /** The endpoint and the query of listenUrl's URL for linear16 audio, past the model, encoding and rate every URL carries. */
  function listen(baseUrl: string, model: string, sampleRate: number, more: Partial<SttStreamOptions>) {
    const url = new URL(listenUrl(baseUrl, { model, sampleRate, encoding: "linear16", ...more }));
    const { model: named, encoding, sample_rate, ...query } = Object.fromEntries(url.searchParams);
    expect({ named, encoding, sample_rate }).toEqual({ named: model, encoding: "linear16", sample_rate: String(sampleRate) });
    return { endpoint: url.origin + url.pathname, query };
  }

  it("asks Nova for linear16, interim results, endpointing and utterance ends on /v1/listen", () => {
    expect(listen("https://api.deepgram.com", "nova-3", 16000, { language: "en-US", endpointingMs: 300, utteranceEndMs: 1000 })).toEqual({
      endpoint: "https://api.deepgram.com/v1/listen",
      query: { channels: "1", interim_results: "true", punctuate: "true", language: "en-US", endpointing: "300", utterance_end_ms: "1000" },
    });
  });

  it("takes flux* models to /v2/listen with the end-of-turn thresholds, under the base URL's path (wss → https)", () => {
    const thresholds = { eotThreshold: 0.8, eagerEotThreshold: 0.5, eotTimeoutMs: 3000 };
    expect(listen("wss://sandbox.test/latency/steady/", "flux-general-en", 8000, thresholds)).toEqual({
      endpoint: "https://sandbox.test/latency/steady/v2/listen",
      query: { eot_threshold: "0.8", eager_eot_threshold: "0.5", eot_timeout_ms: "3000" },
    });
  });
});

describe("Deepgram adapter: reading the socket", () => {
  /** A socket whose server side the test plays. */
  function scripted() {
    const listeners: Record<string, Array<(e: never) => void>> = {};
    const sent: unknown[] = [];
    const closes: number[] = [];
    const socket: ProviderSocket = {
      send: (data) => sent.push(typeof data === "string" ? JSON.parse(data) : data),
      close: (code) => closes.push(code ?? 1005),
      addEventListener: (type: string, l: (e: never) => void) => {
        listeners[type] = [...(listeners[type] ?? []), l];
      },
    };
    const fire = (type: string, e: unknown) => {
      for (const l of listeners[type] ?? []) l(e as never);
    };
    let headers: Record<string, string> = {};
    const connect: SocketConnector = async (_url, h) => {
      headers = h;
      return { socket };
    };
    return { connect, sent, closes, fire, headers: () => headers };
  }

  it("sends the key as `Token`, audio as little-endian bytes (never an empty frame), and maps Flux's turn events", async () => {
    const s = scripted();
    const events: SttStreamEvent[] = [];
    const stream = await new Deepgram("https://api.deepgram.com", "dg-key", { connect: s.connect, keepAliveMs: 0 }).open(
      { model: "flux-general-en", sampleRate: 8000, encoding: "linear16" },
      (e) => events.push(e),
    );
    expect(s.headers()).toEqual({ Authorization: "Token dg-key" });
    stream.send(new Int16Array([1, -2, 256]));
    stream.send(new Int16Array(0));
    expect(s.sent).toHaveLength(1);
    expect([...(s.sent[0] as Uint8Array)]).toEqual([1, 0, 0xfe, 0xff, 0, 1]);
    const turn = (event: string, more: object = {}) =>
      s.fire("message", {
        data: JSON.stringify({ type: "TurnInfo", event, transcript: "Hello there.", end_of_turn_confidence: 0.8, ...more }),
      });
    s.fire("message", { data: JSON.stringify({ type: "Connected", request_id: "r", sequence_id: 0 }) });
    turn("StartOfTurn");
    turn("Update");
    turn("EagerEndOfTurn");
    turn("TurnResumed");
    turn("EndOfTurn");
    s.fire("message", { data: "not json" });
    s.fire("message", { data: new ArrayBuffer(4) });
    expect(events).toEqual([
      { type: "start-of-turn" },
      { type: "update", text: "Hello there." },
      { type: "eager-end-of-turn", text: "Hello there.", confidence: 0.8 },
      { type: "turn-resumed" },
      { type: "end-of-turn", text: "Hello there.", confidence: 0.8 },
    ]);
    stream.finalize();
    expect(s.sent.at(-1)).toEqual({ type: "ForceEndTurn" });
    // Flux's Error message: one error event, then nothing more (not even for the close after it).
    s.fire("message", { data: JSON.stringify({ type: "Error", code: "INTERNAL_SERVER_ERROR", description: "boom" }) });
    s.fire("close", { code: 1011, reason: "" });
    expect(events.slice(5)).toEqual([{ type: "error", message: "deepgram failed: INTERNAL_SERVER_ERROR: boom" }]);
    expect(stream.closed).toBe(true);
    expect(await stream.close()).toBeCloseTo(3 / 8000, 6);
  });

  it("close(): CloseStream, then Nova's Metadata duration once Deepgram closes", async () => {
    const s = scripted();
    const stream = await new Deepgram("https://api.deepgram.com", "k", { connect: s.connect, keepAliveMs: 0 }).open(
      { model: "nova-3", sampleRate: 16000, encoding: "linear16" },
      () => {},
    );
    stream.finalize();
    expect(s.sent.at(-1)).toEqual({ type: "Finalize" });
    const closing = stream.close();
    expect(s.sent.at(-1)).toEqual({ type: "CloseStream" });
    expect(stream.closed).toBe(false);
    s.fire("message", { data: JSON.stringify({ type: "Metadata", duration: 12.5, channels: 1 }) });
    s.fire("close", { code: 1000, reason: "" });
    expect(await closing).toBe(12.5);
    expect(stream.closed).toBe(true);
  });
});

describe("provider registry: streaming transcription", () => {
  const config = (key?: string) =>
    ({ DEEPGRAM_BASE_URL: "https://api.deepgram.com", DEEPGRAM_API_KEY: key, PROVIDER_TIMEOUT_MS: 1000 }) as AppConfig;

  it("is Deepgram when DEEPGRAM_API_KEY is set, else none", () => {
    expect(streamingSttProvider(config())).toBeNull();
    expect(streamingSttProvider(config("dg"))?.name).toBe("deepgram");
  });
});
