// One live call: its media socket (Twilio or browser), turn detection, speech-to-text → the
// agent's LLM → text-to-speech, barge-in, end-call phrases, max duration and the silence
// timeout, the transcript, the recording, metering. Runs inside the call's Durable Object
// (src/calls/durable-object.ts); docs/calls.md describes the behaviour.
import { eq } from "drizzle-orm";
import { type Agent, agents, type Call, type TranscriptTurn, type Voice, voices } from "../db/schema";
import { openScope, type Scope } from "../db/scope";
import type { AppConfig } from "../env";
import { pcmToWav } from "../lib/audio";
import { sha256Hex, timingSafeEqual } from "../lib/crypto";
import { ApiError } from "../lib/errors";
import { agentReply } from "../metering/agent-reply";
import { meter, type Payer } from "../metering/metered";
import { sttProvider, ttsProvider } from "../providers/registry";
import type { ChatMessage } from "../providers/types";
import { telephonyProvider } from "../telephony/registry";
import type { WebhookDeps } from "../webhooks/deliver";
import { pcm16FromBytes, pcm16ToBytes, resample } from "./codec";
import { finishCall, isEnded, startCall } from "./lifecycle";
import { renderTemplate } from "./prompt";
import { Recorder } from "./recording";
import type { EndedReason } from "./states";
import { findCall, saveTranscript } from "./store";
import { type SessionEvents, type Transport, TwilioTransport, WebTransport } from "./transports";
import { TurnDetector } from "./turns";

export const DEFAULT_VOICE_ID = "00000000-0000-7000-8000-000000000001";
/** OpenAI's (and our adapters') `pcm`: 16-bit mono at 24 kHz. */
const TTS_PCM_RATE = 24_000;
const REPLY_MAX_TOKENS = 300;
const TICK_MS = 200;
/** A mark that never comes back (a lost message) stops counting as speaking after this much extra time. */
const MARK_GRACE_MS = 3_000;
const RECORDING_SAVE_MS = 10_000;

const VOICE_INSTRUCTIONS =
  "You are speaking on a live voice call. Answer in one to three short spoken sentences, without lists, markdown or emoji.";

interface Playing {
  mark: string;
  turn: TranscriptTurn;
  sentAt: number;
  durationMs: number;
}

interface Stage {
  stage: "stt" | "llm" | "tts";
}

export interface SessionOptions {
  config: AppConfig;
  callId: string;
  kind: "twilio" | "web";
  socket: WebSocket;
  origin: string;
  recordings?: R2Bucket;
  waitUntil(p: Promise<unknown>): void;
  onClosed(): void;
}

export class CallSessionRuntime implements SessionEvents {
  private readonly transport: Transport;
  private readonly scope: Scope;
  private readonly deps: WebhookDeps;
  private call: Call | null = null;
  private agent: Agent | null = null;
  private voice: Voice | null = null;
  private detector: TurnDetector | null = null;
  private recorder: Recorder | null = null;
  private readonly history: ChatMessage[] = [];
  private readonly turns: TranscriptTurn[] = [];
  private connectedAt = 0;
  private lastActivity = 0;
  private playing: Playing | null = null;
  private endAfterPlayback: EndedReason | null = null;
  private busy = 0;
  private queue: Promise<void> = Promise.resolve();
  private ticker: ReturnType<typeof setInterval> | undefined;
  private state: "waiting" | "starting" | "live" | "ended" = "waiting";

  constructor(private readonly opts: SessionOptions) {
    const { config } = opts;
    this.scope = openScope(config);
    this.deps = { db: this.scope.db, config, waitUntil: (p) => this.scope.defer(p), origin: opts.origin };
    this.transport = opts.kind === "twilio" ? new TwilioTransport(opts.socket, this) : new WebTransport(opts.socket, this);
  }

  private log(msg: string, extra: Record<string, unknown> = {}): void {
    console.log(JSON.stringify({ level: "info", msg, callId: this.opts.callId, ...extra }));
  }

  // -- transport events -----------------------------------------------------------------

  onStart(params: Record<string, string>): void {
    if (this.state !== "waiting") return;
    this.state = "starting";
    this.begin(params).catch((err: Error) => {
      this.log("call session failed to start", { error: err.name, message: err.message });
      void this.end("media-stream-failed");
    });
  }

  onFrame(frame: Int16Array, at: number): void {
    if (this.state !== "live" || !this.detector) return;
    this.recorder?.caller(frame);
    for (const event of this.detector.push(frame, at)) {
      this.lastActivity = at;
      if (event.type === "speech-start") {
        if (this.playing) this.bargeIn(at);
        continue;
      }
      this.busy++;
      this.queue = this.queue
        .then(() => this.handleTurn(event.audio, event.speechStartAt, event.speechEndAt))
        .finally(() => {
          this.busy--;
          this.lastActivity = Date.now();
        });
    }
  }

  onMark(name: string): void {
    if (this.playing?.mark !== name) return;
    this.playing = null;
    this.lastActivity = Date.now();
    if (this.endAfterPlayback) void this.end(this.endAfterPlayback);
  }

  onHangup(cause: string): void {
    if (this.state === "ended") return;
    this.log("caller side closed", { cause });
    if (this.state === "waiting") {
      // The socket closed before the stream started: nothing to end here; the provider's
      // status callback or the watchdog settles the call.
      this.state = "ended";
      this.cleanUp();
      return;
    }
    void this.end("customer-ended-call");
  }

  onProtocolError(message: string): void {
    this.log("media protocol error", { message });
  }

  // -- the conversation ---------------------------------------------------------------------

  private async begin(params: Record<string, string>): Promise<void> {
    const { db } = this.scope;
    const call = await findCall(db, this.opts.callId);
    if (this.state !== "starting") return; // ended while we read (hang-up, watchdog)
    if (!call || isEnded(call)) {
      this.transport.close(1008, "this call is not live");
      this.state = "ended";
      this.cleanUp();
      return;
    }
    if (this.opts.kind === "twilio") {
      // Twilio passes our <Parameter name="token"> back in `start`: the stream is this call's.
      const given = await sha256Hex(params.token ?? "");
      if (this.state !== "starting") return;
      const enc = new TextEncoder();
      if (!call.streamTokenHash || !timingSafeEqual(enc.encode(given), enc.encode(call.streamTokenHash))) {
        this.log("media stream refused: wrong stream token");
        this.transport.close(1008, "stream token refused");
        this.state = "ended";
        this.cleanUp();
        return;
      }
    }
    this.call = call;
    if (call.agentId) [this.agent = null] = await db.select().from(agents).where(eq(agents.id, call.agentId));
    if (this.state !== "starting") return;
    if (!this.agent) {
      this.log("the call's agent was deleted before the call connected");
      await this.end("media-stream-failed");
      return;
    }
    const agent = this.agent;
    [this.voice = null] = await db
      .select()
      .from(voices)
      .where(eq(voices.id, agent.voiceId ?? DEFAULT_VOICE_ID));
    if (this.state !== "starting") return;
    const { config } = this.opts;
    this.detector = new TurnDetector({ sampleRate: this.transport.sampleRate, endpointingMs: config.CALL_ENDPOINTING_MS });
    this.recorder = this.opts.recordings ? new Recorder(this.transport.sampleRate, agent.maxDurationSeconds) : null;
    const prompt = renderTemplate(agent.systemPrompt, call.variables);
    this.history.push({ role: "system", content: prompt ? `${prompt}\n\n${VOICE_INSTRUCTIONS}` : VOICE_INSTRUCTIONS });
    this.connectedAt = Date.now();
    this.lastActivity = this.connectedAt;
    this.state = "live";
    // The first message is synthesized while the call is marked started (not after).
    if (agent.firstMessage) {
      const text = renderTemplate(agent.firstMessage, call.variables);
      this.busy++;
      this.queue = this.queue
        .then(() => this.speak(text, null))
        .catch((err) => this.fail(err, { stage: "tts" }))
        .finally(() => {
          this.busy--;
        });
    }
    const deadline = new Date(this.connectedAt + (agent.maxDurationSeconds + config.CALL_WATCHDOG_GRACE_SECONDS) * 1000);
    const started = await startCall(this.deps, call.id, deadline);
    if (this.state !== "live") return;
    if (!started) {
      // Not moved by us: fine when the carrier's callback already did, over when another writer ended it.
      const now = await findCall(db, call.id);
      if (!now || isEnded(now)) {
        await this.end("media-stream-failed"); // a no-op on the record: the call is already over
        return;
      }
    }
    this.transport.notify({ type: "status", status: "in-progress" });
    this.ticker = setInterval(() => this.tick(), TICK_MS);
  }

  private payer(): Payer {
    const call = this.call as Call;
    return { organizationId: call.organizationId, apiKeyId: null, method: "CALL", endpoint: `/v1/calls/${call.id}`, callId: call.id };
  }

  private async handleTurn(audio: Int16Array, speechStartAt: number, speechEndAt: number): Promise<void> {
    if (this.state !== "live") return;
    const stage: Stage = { stage: "stt" };
    try {
      const t0 = Date.now();
      const text = (await this.transcribe(audio)).trim();
      const sttMs = Date.now() - t0;
      this.log("caller turn", {
        audioMs: Math.round((audio.length / this.transport.sampleRate) * 1000),
        sttMs,
        recognized: text.length > 0,
      });
      if (!text || this.state !== "live") return;
      this.turns.push({ role: "user", text, startMs: speechStartAt - this.connectedAt, endMs: speechEndAt - this.connectedAt });
      this.history.push({ role: "user", content: text });
      this.transport.notify({ type: "transcript", role: "user", text });
      stage.stage = "llm";
      const t1 = Date.now();
      const reply = await this.reply();
      const llmMs = Date.now() - t1;
      if (!reply || this.state !== "live") return;
      stage.stage = "tts";
      await this.speak(reply, { speechEndAt, sttMs, llmMs });
    } catch (err) {
      await this.fail(err, stage);
    }
  }

  private async transcribe(audio: Int16Array): Promise<string> {
    const { config } = this.opts;
    const provider = sttProvider(config);
    const model = config.DEFAULT_STT_MODEL;
    const ms = Math.ceil((audio.length / this.transport.sampleRate) * 1000);
    const wav = pcmToWav(pcm16ToBytes(audio), this.transport.sampleRate);
    const language = this.agent?.language.split("-")[0];
    const result = await meter(
      this.scope.db,
      this.payer(),
      { modality: "stt", provider: provider.name, model, maxQuantity: ms },
      async () => ({
        result: await provider.transcribe({ audio: new Blob([wav], { type: "audio/wav" }), filename: "turn.wav", model, language }),
        quantity: ms,
      }),
      (p) => this.scope.defer(p),
    );
    return result.text;
  }

  private reply(): Promise<string> {
    return agentReply(this.scope.db, this.opts.config, this.payer(), this.agent as Agent, this.history, REPLY_MAX_TOKENS, (p) =>
      this.scope.defer(p),
    );
  }

  private async synthesize(text: string): Promise<Int16Array> {
    const { config } = this.opts;
    const voice = this.voice;
    const provider = ttsProvider(config, voice?.provider ?? "openai");
    const model = voice?.provider === "elevenlabs" ? "eleven_multilingual_v2" : config.DEFAULT_TTS_MODEL;
    const characters = [...text].length;
    const audio = await meter(
      this.scope.db,
      this.payer(),
      { modality: "tts", provider: provider.name, model, maxQuantity: characters },
      async () => ({
        result: await provider.synthesize({ text, voice: voice?.providerVoiceId ?? "alloy", model, format: "pcm" }),
        quantity: characters,
      }),
      (p) => this.scope.defer(p),
    );
    return resample(pcm16FromBytes(new Uint8Array(audio)), TTS_PCM_RATE, this.transport.sampleRate);
  }

  /** Speaks `text` as the agent's turn; `latency` is set for replies (not the first message). */
  private async speak(text: string, latency: { speechEndAt: number; sttMs: number; llmMs: number } | null): Promise<void> {
    const t0 = Date.now();
    const samples = await this.synthesize(text);
    const ttsMs = Date.now() - t0;
    if (this.state !== "live") return;
    const sentAt = Date.now();
    this.transport.sendAudio(samples);
    const mark = `turn-${this.turns.length}`;
    this.transport.sendMark(mark);
    this.recorder?.agent(samples, sentAt - this.connectedAt);
    const durationMs = Math.round((samples.length / this.transport.sampleRate) * 1000);
    const turn: TranscriptTurn = { role: "agent", text, startMs: sentAt - this.connectedAt, endMs: sentAt - this.connectedAt + durationMs };
    if (latency) {
      const voiceToVoiceMs = sentAt - latency.speechEndAt;
      const providersMs = latency.sttMs + latency.llmMs + ttsMs;
      turn.latency = {
        voiceToVoiceMs,
        sttMs: latency.sttMs,
        llmMs: latency.llmMs,
        ttsMs,
        platformMs: voiceToVoiceMs - providersMs,
      };
    }
    this.turns.push(turn);
    this.history.push({ role: "assistant", content: text });
    this.transport.notify({ type: "transcript", role: "agent", text });
    this.playing = { mark, turn, sentAt, durationMs };
    const said = text.toLowerCase();
    if (this.agent?.endCallPhrases.some((p) => said.includes(p.toLowerCase()))) this.endAfterPlayback = "agent-ended-call";
    this.scope.defer(saveTranscript(this.scope.db, (this.call as Call).id, [...this.turns]));
  }

  /** The caller spoke over the agent: stop its audio and keep what it meant to say, marked interrupted. */
  private bargeIn(at: number): void {
    const playing = this.playing;
    if (!playing) return;
    this.playing = null;
    this.transport.clear();
    const played = Math.max(0, Math.min(playing.durationMs, at - playing.sentAt));
    playing.turn.interrupted = true;
    playing.turn.endMs = playing.turn.startMs + played;
    this.recorder?.cutAgent(at - this.connectedAt);
    this.log("barge-in", { playedMs: played, of: playing.durationMs });
    if (this.endAfterPlayback) void this.end(this.endAfterPlayback);
  }

  private tick(): void {
    if (this.state !== "live" || !this.agent) return;
    const now = Date.now();
    if (now - this.connectedAt >= this.agent.maxDurationSeconds * 1000) {
      void this.end("max-duration-reached");
      return;
    }
    if (this.playing && now > this.playing.sentAt + this.playing.durationMs + MARK_GRACE_MS) this.onMark(this.playing.mark);
    const idle = !this.playing && this.busy === 0 && !this.detector?.inSpeech;
    if (idle && now - this.lastActivity >= this.agent.silenceTimeoutSeconds * 1000) void this.end("silence-timeout");
  }

  private async fail(err: unknown, stage: Stage): Promise<void> {
    if (this.state === "ended") return;
    const reason: EndedReason =
      err instanceof ApiError && err.code === "insufficient_credits" ? "insufficient-credits" : (`${stage.stage}-provider-error` as const);
    const e = err as Error;
    this.log("call pipeline failed", { stage: stage.stage, error: e?.name, message: e?.message?.slice(0, 300) });
    await this.end(reason);
  }

  // -- the end --------------------------------------------------------------------------------

  async end(reason: EndedReason): Promise<void> {
    if (this.state === "ended") return;
    this.state = "ended";
    clearInterval(this.ticker);
    this.transport.notify({ type: "ended", reason });
    const call = this.call;
    try {
      // Bounded: a slow bucket must not hold back the call's end and its webhook.
      if (call && this.recorder && this.opts.recordings)
        await Promise.race([
          this.recorder.save(this.opts.recordings, this.scope.db, call),
          new Promise((_, reject) => setTimeout(() => reject(new Error("recording upload timed out")), RECORDING_SAVE_MS)),
        ]);
    } catch (err) {
      this.log("recording not saved", { message: (err as Error).message });
    }
    try {
      await finishCall(this.deps, this.opts.callId, reason, call ? [...this.turns] : undefined);
    } catch (err) {
      this.log("ending the call failed", { message: (err as Error).message });
    }
    if (this.opts.kind === "twilio" && call && reason !== "customer-ended-call") {
      // Then hang up at the carrier (Twilio stops the stream), so the callee side ends as ours too.
      try {
        const sid = (await findCall(this.scope.db, call.id))?.providerCallId ?? call.providerCallId;
        if (sid) await telephonyProvider(this.opts.config).hangUp(sid);
      } catch (err) {
        this.log("hang-up at the carrier failed", { message: (err as Error).message });
      }
    }
    this.transport.close(1000, reason);
    this.cleanUp();
  }

  private cleanUp(): void {
    clearInterval(this.ticker);
    // A turn may still be inside a provider call: its settlement needs the pool, so the pool
    // closes after the turn queue has drained.
    this.opts.waitUntil(this.queue.catch(() => undefined).finally(() => this.scope.close()));
    this.opts.onClosed();
  }

  /** The watchdog's way in: ends a live session that its Durable Object alarm found overdue. */
  get live(): boolean {
    return this.state === "live" || this.state === "starting";
  }
}
