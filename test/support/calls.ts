// Helpers for the call tests: a web-call client (the browser's side of the protocol in
// docs/calls.md), speech from the provider sandbox, and polling a call until it settles.
import WebSocket from "ws";
import { twilioSignature } from "../../dev/sandbox/telephony";
import { FRAME_MS, pcm16FromBytes, pcm16ToBytes, resample } from "../../src/calls/codec";
import { json, request, stack, type Workspace } from "./harness";

export const WEB_RATE = 16_000;

/** The sandbox's speech for `text` as 16-bit samples at `rate`. */
export async function speech(text: string, rate: number, voice = "nova"): Promise<Int16Array> {
  const { vars } = stack();
  const res = await fetch(`${vars.OPENAI_BASE_URL}/audio/speech`, {
    method: "POST",
    headers: { authorization: `Bearer ${vars.OPENAI_API_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "tts-1", voice, input: text, response_format: "pcm" }),
  });
  if (!res.ok) throw new Error(`sandbox speech: ${res.status} ${await res.text()}`);
  return resample(pcm16FromBytes(new Uint8Array(await res.arrayBuffer())), 24_000, rate);
}

export interface WebClient {
  ws: WebSocket;
  events: Array<Record<string, unknown> & { type: string; at: number }>;
  audioFrames: number;
  /** When agent audio arrived (ms epoch), one entry per binary message. */
  audioAt: number[];
  closed: Promise<{ code: number; reason: string }>;
  /** Streams samples in real time (20 ms frames), then `silenceMs` of silence. */
  say(samples: Int16Array, silenceMs?: number): Promise<{ endedAt: number }>;
  silence(ms: number): Promise<void>;
  waitForEvent(pred: (e: Record<string, unknown>) => boolean, ms?: number): Promise<Record<string, unknown>>;
  /** Resolves once the agent's audio received so far has finished "playing". */
  played(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function joinWebCall(url: string, opts: { echoMarks?: boolean } = {}): Promise<WebClient> {
  const ws = new WebSocket(url);
  const events: WebClient["events"] = [];
  const audioAt: number[] = [];
  let audioFrames = 0;
  let playbackEnds = Date.now();
  let closedWith: { code: number; reason: string } | null = null;
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on("close", (code, reason) => {
      closedWith = { code, reason: reason.toString() };
      resolve(closedWith);
    }),
  );
  ws.on("message", (data, isBinary) => {
    if (isBinary) {
      const samples = (data as Buffer).length / 2;
      audioFrames++;
      audioAt.push(Date.now());
      // "Play" it: marks are echoed when playback reaches them, as a browser would.
      playbackEnds = Math.max(playbackEnds, Date.now()) + (samples / WEB_RATE) * 1000;
      return;
    }
    const msg = JSON.parse(data.toString()) as Record<string, unknown> & { type: string };
    events.push({ ...msg, at: Date.now() });
    if (msg.type === "mark" && opts.echoMarks !== false) {
      setTimeout(
        () => ws.readyState === WebSocket.OPEN && ws.send(JSON.stringify({ type: "mark", name: msg.name })),
        Math.max(0, playbackEnds - Date.now()),
      );
    }
    if (msg.type === "clear") playbackEnds = Date.now();
  });
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("unexpected-response", (_req, res) => reject(new Error(`web-call socket refused: ${res.statusCode}`)));
    ws.once("error", reject);
  });
  const frame = (WEB_RATE * FRAME_MS) / 1000;
  // A frame at most every FRAME_MS, never a burst to catch up after a late timer: the worker
  // stamps a frame with its arrival time, so on a busy machine a burst would squeeze the caller's
  // pauses and silences below the audio they carry (a 1,200 ms wait measured as 1,176).
  const send = async (samples: Int16Array) => {
    for (let i = 0; i < samples.length; i += frame) {
      if (ws.readyState !== WebSocket.OPEN) return;
      const sent = Date.now();
      const chunk = new Int16Array(frame);
      chunk.set(samples.subarray(i, i + frame));
      ws.send(pcm16ToBytes(chunk));
      const wait = sent + FRAME_MS - Date.now();
      if (wait > 0) await sleep(wait);
    }
  };
  return {
    ws,
    events,
    audioAt,
    get audioFrames() {
      return audioFrames;
    },
    closed,
    async say(samples, silenceMs = 800) {
      await send(samples);
      const endedAt = Date.now();
      await send(new Int16Array(Math.round((silenceMs / 1000) * WEB_RATE)));
      return { endedAt };
    },
    silence: (ms) => send(new Int16Array(Math.round((ms / 1000) * WEB_RATE))),
    played: async () => {
      await sleep(Math.max(0, playbackEnds - Date.now()));
    },
    async waitForEvent(pred, ms = 30_000) {
      const until = Date.now() + ms;
      for (;;) {
        const hit = events.find(pred);
        if (hit) return hit;
        const got = JSON.stringify(events.map((e) => e.type));
        // Nothing comes after the socket closed (a worker that restarted on a rebuild closes it too).
        if (closedWith) throw new Error(`no such event: the socket closed (${closedWith.code} ${closedWith.reason}); got ${got}`);
        if (Date.now() > until) throw new Error(`no such event within ${ms} ms; got ${got}`);
        await sleep(20);
      }
    },
  };
}

/** Tries a WebSocket upgrade that should be refused; resolves with the HTTP status and our error body. */
export function refusedUpgrade(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: { code?: string } }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once("open", () => {
      ws.close();
      reject(new Error("the upgrade was accepted"));
    });
    ws.once("unexpected-response", (_req, res) => {
      let text = "";
      res.on("data", (c: Buffer) => {
        text += c.toString();
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : {} }));
    });
    ws.once("error", (err) => reject(err));
  });
}

export interface CallView {
  id: string;
  type: string;
  status: string;
  endedReason: string | null;
  endedReasonCategory: string | null;
  durationSeconds: number | null;
  endedAt: string | null;
  transcript: {
    fullText: string;
    turns: Array<{
      role: string;
      text: string;
      startMs: number;
      endMs: number;
      interrupted?: boolean;
      latency?: {
        voiceToVoiceMs: number;
        endpointingMs?: number;
        sttMs: number;
        llmMs: number;
        ttsMs: number;
        platformMs: number;
        retrievalMs?: number;
        retrievalPrefetched?: boolean;
      };
    }>;
  };
  analysis: Record<string, unknown> | null;
  report: Record<string, unknown> | null;
  analysisError: string | null;
  recording: { url: string; durationSeconds: number } | null;
  cost: {
    credits: number;
    stt: { quantity: number; credits: number };
    llm: { quantity: number; credits: number };
    tts: { quantity: number; credits: number };
    knowledge: { quantity: number; unit: string; credits: number };
  };
  latency: { turns: number; voiceToVoiceMsP50: number; platformMsP50: number } | null;
  [k: string]: unknown;
}

/** Polls GET /v1/calls/:id until `done` holds. */
export async function waitForCall(ws: Workspace, id: string, done: (c: CallView) => boolean, ms = 30_000): Promise<CallView> {
  const until = Date.now() + ms;
  let last: CallView | undefined;
  while (Date.now() < until) {
    const res = await ws.api(`/v1/calls/${id}`);
    last = await json<CallView>(res);
    if (done(last)) return last;
    await sleep(150);
  }
  throw new Error(`call ${id} did not settle within ${ms} ms: ${JSON.stringify(last)?.slice(0, 600)}`);
}

export const createAgent = async (ws: Workspace, body: Record<string, unknown> = {}) => {
  const res = await ws.api("/v1/agents", {
    method: "POST",
    json: { name: "Call agent", personaId: "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77", llmModel: "sandbox-chat", ...body },
  });
  if (res.status !== 201) throw new Error(`create agent: ${res.status} ${await res.text()}`);
  return json<{ id: string; name: string }>(res);
};

// -- the telephony sandbox (dev/sandbox/telephony.ts), seen from a test process ---------------

export interface SandboxCall {
  sid: string;
  to: string;
  scenario: string;
  status: string;
  statuses: Array<{ status: string; at: number }>;
  callbacks: Array<{ status: string; httpStatus?: number; error?: string; redelivery: boolean }>;
  customParameters: Record<string, string>;
  said: Array<{ text: string; startAt: number; endAt?: number }>;
  heardFrames: number;
  agentUtterances: Array<{ firstFrameAt: number; frames: number; cleared: boolean }>;
  latencies: number[];
  underruns: number;
  clears: number;
  lateFrames: number;
  endedBy?: string;
  closeCode?: number;
  bargeIn?: { at: number; clearAfterMs?: number };
  /** The TwiML the worker set on the live call (a transfer's <Dial>), and what a <Dial action> answered, as received. */
  twimlUpdates: Array<{ at: number; twiml: string }>;
  /** What the worker's TwiML had Twilio say on the call (<Say>), in order. */
  platformSaid: string[];
  /** The transfer leg of the latest <Dial>: `outcome` is Twilio's DialCallStatus (docs/sandbox.md). */
  transfer?: {
    to: string;
    callerId: string;
    answerOnBridge: boolean;
    requestedAt: number;
    ringingAt?: number;
    answeredAt?: number;
    endedAt?: number;
    outcome?: "completed" | "busy" | "no-answer" | "failed" | "canceled";
    duration?: number;
  };
  /** Answering-machine detection, when the call asked for it: the verdict posted and the worker's answer (dev/sandbox/amd.ts). */
  amd?: { mode: string; callbackUrl: string; answeredBy?: string; sentAt?: number; postedAt?: number; httpStatus?: number; error?: string };
  /** The machine number's greeting, beep and what it recorded after the beep (transcribed once the call ended). */
  machine?: {
    greeting?: { startAt: number; endAt?: number };
    beep?: { startAt: number; endAt?: number };
    recording: { firstAt?: number; lastAt?: number; frames: number };
    transcript?: string;
  };
  errors: string[];
}

const sandboxFetch = (path: string, init: RequestInit = {}) => {
  const { vars } = stack();
  const auth = Buffer.from(`${vars.TWILIO_ACCOUNT_SID}:${vars.TWILIO_AUTH_TOKEN}`).toString("base64");
  return fetch(`${vars.TWILIO_API_BASE_URL}${path}`, { ...init, headers: { authorization: `Basic ${auth}`, ...init.headers } });
};

/** The callee's record of a call as it is now (still ringing, talking, or over). */
export async function sandboxCallNow(sid: string): Promise<SandboxCall> {
  const res = await sandboxFetch(`/__sandbox/calls/${sid}`);
  if (!res.ok) throw new Error(`sandbox call ${sid}: ${res.status} ${await res.text()}`);
  return (await res.json()) as SandboxCall;
}

/** The callee's record of a call, once the call has ended there and its last callback was sent. */
export async function settledSandboxCall(sid: string, ms = 30_000): Promise<SandboxCall> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const res = await sandboxFetch(`/__sandbox/calls/${sid}/settled`);
    if (res.ok) {
      const body = (await res.json()) as { settled: boolean; call: SandboxCall };
      if (body.settled) return body.call;
    }
    await sleep(150);
  }
  throw new Error(`sandbox call ${sid} did not settle within ${ms} ms`);
}

/** Sends the call's last status callback again, verbatim (a duplicate, as carriers do). */
export async function redeliverCallback(sid: string): Promise<{ httpStatus?: number }> {
  const res = await sandboxFetch(`/__sandbox/calls/${sid}/redeliver`, { method: "POST" });
  if (!res.ok) throw new Error(`redeliver: ${res.status} ${await res.text()}`);
  return (await res.json()) as { httpStatus?: number };
}

// -- the sandbox account's numbers, configured through Twilio's own REST resources ------------

const accountPath = (resource: string) => `/2010-04-01/Accounts/${stack().vars.TWILIO_ACCOUNT_SID}/${resource}`;

/** A North American number no earlier test or run has used (a real Postgres keeps numbers between runs). */
export const freshNumber = () => `+1${2 + Math.floor(Math.random() * 8)}${String(Math.floor(Math.random() * 1e9)).padStart(9, "0")}`;

/** Makes `number` one of the sandbox account's numbers: bought (IncomingPhoneNumbers) or a verified caller id. */
export async function twilioHas(number: string, kind: "incoming" | "verified" = "incoming"): Promise<string> {
  const res = await sandboxFetch(accountPath(kind === "incoming" ? "IncomingPhoneNumbers.json" : "OutgoingCallerIds.json"), {
    method: "POST",
    body: new URLSearchParams({ PhoneNumber: number }),
  });
  if (res.status !== 201) throw new Error(`sandbox ${kind} number: ${res.status} ${await res.text()}`);
  return number;
}

/** Releases `number` from the sandbox account (both kinds). */
export async function twilioReleases(number: string): Promise<void> {
  for (const resource of ["IncomingPhoneNumbers", "OutgoingCallerIds"]) {
    const list = await sandboxFetch(`${accountPath(`${resource}.json`)}?${new URLSearchParams({ PhoneNumber: number })}`);
    const body = (await list.json()) as Record<string, Array<{ sid: string; phone_number: string }>>;
    const items = body[resource === "IncomingPhoneNumbers" ? "incoming_phone_numbers" : "outgoing_caller_ids"] ?? [];
    for (const item of items.filter((i) => i.phone_number === number)) {
      const res = await sandboxFetch(accountPath(`${resource}/${item.sid}.json`), { method: "DELETE" });
      if (res.status !== 204) throw new Error(`sandbox release: ${res.status} ${await res.text()}`);
    }
  }
}

/** The calls the sandbox was asked to place from `number` (it refuses a From the account does not have). */
export async function sandboxCallsFrom(number: string): Promise<SandboxCall[]> {
  const res = await sandboxFetch("/__sandbox/calls");
  return ((await res.json()) as Array<SandboxCall & { from: string }>).filter((c) => c.from === number);
}

/** A number of the sandbox account, added to the workspace as a caller id; its id. */
export async function addCallerId(ws: Workspace, kind: "incoming" | "verified" = "incoming"): Promise<{ id: string; number: string }> {
  const number = await twilioHas(freshNumber(), kind);
  const res = await ws.api("/v1/phone-numbers", { method: "POST", json: { number } });
  if (res.status !== 201) throw new Error(`add phone number: ${res.status} ${await res.text()}`);
  return json<{ id: string; number: string }>(res);
}

/** The provider call id (Twilio CallSid) of a call, read from the database. */
export async function providerCallId(callId: string): Promise<string> {
  const { testDb } = await import("./harness");
  const { calls } = await import("../../src/db/schema");
  const { eq } = await import("drizzle-orm");
  const until = Date.now() + 10_000;
  while (Date.now() < until) {
    const [row] = await testDb().select({ sid: calls.providerCallId }).from(calls).where(eq(calls.id, callId));
    if (row?.sid) return row.sid;
    await sleep(50);
  }
  throw new Error(`call ${callId} has no provider call id`);
}

/**
 * GET /v1/calls/:id/recording: checks it is the 16-bit PCM stereo WAV the API serves (stored
 * compressed, docs/calls.md "Recordings") with a Content-Length that matches, and returns its tracks.
 */
export async function downloadRecording(ws: Workspace, id: string): Promise<{ rate: number; caller: Int16Array; agent: Int16Array }> {
  const res = await ws.api(`/v1/calls/${id}/recording`);
  if (res.status !== 200) throw new Error(`recording: ${res.status} ${await res.text()}`);
  if (res.headers.get("content-type") !== "audio/wav") throw new Error(`recording content-type ${res.headers.get("content-type")}`);
  const bytes = new Uint8Array(await res.arrayBuffer());
  const view = new DataView(bytes.buffer);
  const header = {
    riff: new TextDecoder().decode(bytes.subarray(0, 4)),
    contentLength: Number(res.headers.get("content-length")),
    riffSize: view.getUint32(4, true) + 8,
    format: view.getUint16(20, true),
    channels: view.getUint16(22, true),
    bits: view.getUint16(34, true),
    dataSize: view.getUint32(40, true) + 44,
  };
  const expected = {
    riff: "RIFF",
    contentLength: bytes.length,
    riffSize: bytes.length,
    format: 1,
    channels: 2,
    bits: 16,
    dataSize: bytes.length,
  };
  if (JSON.stringify(header) !== JSON.stringify(expected)) throw new Error(`recording header ${JSON.stringify(header)}`);
  const frames = (bytes.length - 44) / 4;
  const track = (offset: number) => Int16Array.from({ length: frames }, (_, i) => view.getInt16(44 + i * 4 + offset, true));
  return { rate: view.getUint32(24, true), caller: track(0), agent: track(2) };
}

// -- requests as Twilio sends them --------------------------------------------------------------

/** `params` signed as Twilio signs a request to `url` (X-Twilio-Signature), with the sandbox's signer. */
export const twilioSign = (token: string, url: string, params: URLSearchParams): string =>
  twilioSignature(token, url, Object.fromEntries(params));

/** POSTs Twilio's form-encoded `params` to one of the worker's telephony paths, with `signature` when given. */
export const postTwilioForm = (path: string, params: URLSearchParams, signature?: string, base?: string) =>
  request(
    path,
    {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...(signature ? { "x-twilio-signature": signature } : {}) },
      body: params.toString(),
    },
    base,
  );
