// The browser's side of a web call (docs/calls.md, "Web calls: the socket protocol"), for the calls
// bench: 16 kHz PCM sent in real time as 20 ms frames, the agent's audio "played" in real time
// (marks echoed when playback reaches them, as a browser does), every text message kept with its
// arrival time. The same protocol as test/support/calls.ts joinWebCall, without the test harness.
import WebSocket from "ws";
import { FRAME_MS, pcm16FromBytes, pcm16ToBytes, resample } from "../src/calls/codec";

export const WEB_RATE = 16_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The provider sandbox's speech for `text` (instant profile) as 16-bit samples at `rate`: what a person at a microphone says. */
export async function sandboxSpeech(provider: { baseUrl: string; apiKey: string }, text: string, rate = WEB_RATE): Promise<Int16Array> {
  const res = await fetch(`${provider.baseUrl}/audio/speech`, {
    method: "POST",
    headers: { authorization: `Bearer ${provider.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "tts-1", voice: "nova", input: text, response_format: "pcm" }),
  });
  if (!res.ok) throw new Error(`sandbox speech: ${res.status} ${await res.text()}`);
  return resample(pcm16FromBytes(new Uint8Array(await res.arrayBuffer())), 24_000, rate);
}

export interface WebCallClient {
  events: Array<Record<string, unknown> & { type: string; at: number }>;
  /** Arrival time (epoch ms) of each binary message of agent audio. */
  audioAt: number[];
  closed: Promise<{ code: number; reason: string }>;
  /** Streams samples in real time (20 ms frames); resolves with the epoch ms of the first and last frame sent. */
  send(samples: Int16Array): Promise<{ startedAt: number; endedAt: number }>;
  silence(ms: number): Promise<void>;
  /** Resolves once the agent's audio received so far has finished "playing". */
  played(): Promise<void>;
  /** When the playback of the audio received so far ends (epoch ms). */
  playbackEnds(): number;
  hangup(): void;
  close(): void;
}

/** Joins a web call's socket (`webCall.url`) as a browser would. */
export async function joinWebCall(url: string): Promise<WebCallClient> {
  const ws = new WebSocket(url);
  const events: WebCallClient["events"] = [];
  const audioAt: number[] = [];
  let playbackEnds = Date.now();
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on("close", (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  ws.on("message", (data, isBinary) => {
    if (isBinary) {
      audioAt.push(Date.now());
      playbackEnds = Math.max(playbackEnds, Date.now()) + ((data as Buffer).length / 2 / WEB_RATE) * 1000;
      return;
    }
    const msg = JSON.parse(data.toString()) as Record<string, unknown> & { type: string };
    events.push({ ...msg, at: Date.now() });
    if (msg.type === "mark")
      setTimeout(
        () => ws.readyState === WebSocket.OPEN && ws.send(JSON.stringify({ type: "mark", name: msg.name })),
        Math.max(0, playbackEnds - Date.now()),
      );
    if (msg.type === "clear") playbackEnds = Date.now();
  });
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("unexpected-response", (_req, res) => reject(new Error(`web-call socket refused: ${res.statusCode}`)));
    ws.once("error", reject);
  });
  const frame = (WEB_RATE * FRAME_MS) / 1000;
  const send = async (samples: Int16Array) => {
    const startedAt = Date.now();
    let endedAt = startedAt;
    for (let i = 0, n = 0; i < samples.length; i += frame, n++) {
      if (ws.readyState !== WebSocket.OPEN) break;
      const chunk = new Int16Array(frame);
      chunk.set(samples.subarray(i, i + frame));
      ws.send(pcm16ToBytes(chunk));
      endedAt = Date.now();
      const wait = startedAt + (n + 1) * FRAME_MS - Date.now();
      if (wait > 0) await sleep(wait);
    }
    return { startedAt, endedAt };
  };
  return {
    events,
    audioAt,
    closed,
    send,
    silence: async (ms) => {
      await send(new Int16Array(Math.round((ms / 1000) * WEB_RATE)));
    },
    played: async () => {
      await sleep(Math.max(0, playbackEnds - Date.now()));
    },
    playbackEnds: () => playbackEnds,
    hangup: () => {
      if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: "hangup" }));
    },
    close: () => ws.close(),
  };
}

/**
 * Where in `samples` the first word ends: the first quiet stretch (≥ 2 frames under `threshold`)
 * after the speech started, in ms from the start of the samples; null when there is none.
 */
export function firstWordEndMs(samples: Int16Array, threshold = 400, rate = WEB_RATE): { startMs: number; endMs: number } | null {
  const frame = (rate * FRAME_MS) / 1000;
  const loud: boolean[] = [];
  for (let i = 0; i < samples.length; i += frame) {
    let sum = 0;
    const end = Math.min(samples.length, i + frame);
    for (let j = i; j < end; j++) sum += (samples[j] as number) ** 2;
    loud.push(Math.sqrt(sum / Math.max(1, end - i)) > threshold);
  }
  const start = loud.indexOf(true);
  if (start < 0) return null;
  for (let f = start + 1; f + 1 < loud.length; f++) {
    if (!loud[f] && !loud[f + 1] && loud.slice(f + 2).some(Boolean)) return { startMs: start * FRAME_MS, endMs: f * FRAME_MS };
  }
  return null;
}

/** Waits until no agent audio came for `gapMs` after `since` and what came has played; false after `maxMs`. */
export async function agentDone(client: WebCallClient, since: number, gapMs: number, maxMs: number): Promise<boolean> {
  const until = Date.now() + maxMs;
  while (Date.now() < until) {
    const last = client.audioAt.at(-1) ?? 0;
    if (last > since && Date.now() - last > gapMs && client.playbackEnds() <= Date.now()) return true;
    await sleep(50);
  }
  return false;
}

/**
 * A conversation from a web client: the first message heard out, then each line said after the
 * agent's reply ended, as the telephony sandbox's callee does. Per reply, the client's measure: the
 * line's last frame sent to the first agent audio received after it. What went wrong goes to `problems`.
 */
export async function converse(client: WebCallClient, lines: Int16Array[], problems: string[]): Promise<number[]> {
  const measured: number[] = [];
  if (!(await agentDone(client, 0, 400, 10_000))) problems.push("the first message did not come or did not end");
  for (const line of lines) {
    await sleep(200); // the sandbox callee's reply delay
    const { endedAt } = await client.send(line);
    const heardBefore = client.audioAt.length;
    // Silence until the reply starts (a browser keeps sending its microphone).
    const until = Date.now() + 8_000;
    while (client.audioAt.length === heardBefore && Date.now() < until) await client.silence(100);
    const first = client.audioAt[heardBefore];
    if (first === undefined) {
      problems.push("no reply to a line");
      break;
    }
    measured.push(first - endedAt);
    if (!(await agentDone(client, endedAt, 400, 15_000))) problems.push("a reply did not end");
  }
  return measured;
}
