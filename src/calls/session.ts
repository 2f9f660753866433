// One live call: its media socket (Twilio or browser), turn detection, speech-to-text → the
// agent's LLM → text-to-speech, barge-in, end-call phrases, max duration and the silence
// timeout, the agent's tools (end_call, transfer_call), the transcript, the recording, metering.
// Runs inside the call's Durable Object
// (src/calls/durable-object.ts); docs/calls.md describes the behaviour.
import { eq } from "drizzle-orm";
import { type Agent, agents, type Call, type TranscriptTurn, type TransferDestination, type Voice, voices } from "../db/schema";
import { openScope, type Scope } from "../db/scope";
import type { AppConfig } from "../env";
import { pcmToWav } from "../lib/audio";
import { sha256Hex, timingSafeEqual } from "../lib/crypto";
import { ApiError } from "../lib/errors";
import { agentReplyStream } from "../metering/agent-reply";
import { meter, type Payer } from "../metering/metered";
import { synthesizeStreamed, synthesizeWhole } from "../metering/speech";
import { ProviderError } from "../providers/http";
import { sttProvider, ttsProvider } from "../providers/registry";
import type { ChatMessage } from "../providers/types";
import { telephonyProvider } from "../telephony/registry";
import { CallNotInProgressError } from "../telephony/types";
import { type AgentTurn, agentTurn, type LiveTurn, type Round, type TurnRecord } from "../tools/runtime";
import type { WebhookDeps } from "../webhooks/deliver";
import { pcm16FromBytes, pcm16ToBytes, resample } from "./codec";
import type { PreparedSpeech } from "./first-message";
import { finishCall, isEnded, startCall } from "./lifecycle";
import { TWILIO_DIAL_PATH } from "./place";
import { renderTemplate } from "./prompt";
import { Recorder } from "./recording";
import { type EndedReason, statusFor } from "./states";
import { findCall, recordTransfer, type StoredRecording, saveTranscript } from "./store";
import { type SessionEvents, type Transport, TwilioTransport, WebTransport } from "./transports";
import { type Turn, TurnDetector, TurnTaker } from "./turns";
import { heardText, type PlayedChunk, SentenceChunker, Utterance } from "./utterance";

export const DEFAULT_VOICE_ID = "00000000-0000-7000-8000-000000000001";
/** OpenAI's (and our adapters') `pcm`: 16-bit mono at 24 kHz. */
const TTS_PCM_RATE = 24_000;
const REPLY_MAX_TOKENS = 300;
const TICK_MS = 200;
/** A mark that never comes back (a lost message) stops counting as speaking after this much extra time. */
const MARK_GRACE_MS = 3_000;
const RECORDING_SAVE_MS = 10_000;
/** The caller's last words (said inside the endpointing wait, then the call ended) get this long to be transcribed. */
const PENDING_SPEECH_MS = 5_000;
/** Said when the carrier refused to hand the call on; the conversation goes on. */
const TRANSFER_FAILED_MESSAGE = "Sorry, I could not transfer your call right now.";

/** `work`, or an error after `ms`. */
const within = <T>(work: Promise<T>, ms: number, message: string): Promise<T> => {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    work,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(message)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
};

const VOICE_INSTRUCTIONS =
  "You are speaking on a live voice call. Answer in one to three short spoken sentences, without lists, markdown or emoji.";

interface Playing {
  /** The mark sent after the reply's last audio; null while its audio is still streaming. */
  mark: string | null;
  turn: TranscriptTurn;
  /** The reply's entry in the LLM history: after a barge-in, what the caller heard. */
  said: ChatMessage;
  sentAt: number;
  /** When the audio sent so far ends playing (epoch ms). */
  endsAt: number;
  /** The reply's chunks on the playback timeline, to tell what was heard at a barge-in; this turn's from `fromChunk`. */
  chunks: PlayedChunk[];
  fromChunk: number;
  /** Cancels the reply's LLM and speech requests still in flight (the streaming loop). */
  cancel: AbortController | null;
}

type ToolTurn = Extract<TurnRecord, { role: "tool" }>;

/** What a reply's latency is measured from (not the first message). */
interface ReplyTiming {
  speechEndAt: number;
  sttMs: number;
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
  /** The first message's audio, made while the phone rang (src/calls/first-message.ts). */
  prepared?: Promise<PreparedSpeech | null> | null;
  waitUntil(p: Promise<unknown>): void;
  onClosed(): void;
}

/** A request we cancelled (a barge-in): not a failure of the call. */
const isCancel = (err: unknown) => err instanceof ProviderError && err.failure === "canceled";

export class CallSessionRuntime implements SessionEvents {
  private readonly transport: Transport;
  private readonly scope: Scope;
  private readonly deps: WebhookDeps;
  private call: Call | null = null;
  private agent: Agent | null = null;
  private voice: Voice | null = null;
  /** Turn detection and speculative transcription (src/calls/turns.ts). */
  private turnTaker: TurnTaker | null = null;
  private recorder: Recorder | null = null;
  private readonly history: ChatMessage[] = [];
  private readonly turns: TranscriptTurn[] = [];
  private connectedAt = 0;
  private lastActivity = 0;
  private playing: Playing | null = null;
  private endAfterPlayback: EndedReason | null = null;
  /** Where transfer_call hands the caller once its message has played; `transferring` while the carrier is asked. */
  private transferTo: TransferDestination | null = null;
  private transferring = false;
  /** The media stream closed while the carrier was asked: expected when it takes the call, a hang-up when it refuses. */
  private closedWhileTransferring = false;
  private busy = 0;
  private queue: Promise<void> = Promise.resolve();
  private ticker: ReturnType<typeof setInterval> | undefined;
  private state: "waiting" | "starting" | "live" | "ending" | "ended" = "waiting";
  private ending: Promise<void> | null = null;

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
    if (this.state !== "live" || !this.turnTaker) return;
    this.recorder?.caller(frame);
    for (const event of this.turnTaker.push(frame, at)) {
      this.lastActivity = at;
      if (event.type === "speech-start" && this.playing) this.bargeIn(at);
    }
  }

  /** The caller's turn ended (after the endpointing wait, or early on a sentence): answered in turn order. */
  private onTurn(turn: Turn): void {
    this.lastActivity = Date.now();
    this.busy++;
    this.queue = this.queue
      .then(() => this.handleTurn(turn))
      .finally(() => {
        this.busy--;
        this.lastActivity = Date.now();
      });
  }

  onMark(name: string): void {
    if (!this.playing?.mark || this.playing.mark !== name) return;
    this.playing = null;
    this.lastActivity = Date.now();
    this.afterPlayback();
  }

  /** What the last reply asked for once it was heard (or cut): a transfer, or the end of the call. */
  private afterPlayback(): void {
    if (this.transferTo) {
      if (!this.transferring) void this.handOn(this.transferTo);
    } else if (this.endAfterPlayback) void this.end(this.endAfterPlayback);
  }

  onHangup(cause: string): void {
    if (this.state === "ended" || this.state === "ending") return;
    if (this.transferring) {
      this.closedWhileTransferring = true; // the carrier took the call from our stream: handOn() ends it
      return;
    }
    this.log("caller side closed", { cause });
    if (this.state === "live") this.keepHeard(Date.now());
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
    const detector = new TurnDetector({
      sampleRate: this.transport.sampleRate,
      endpointingMs: config.CALL_ENDPOINTING_MS,
      pauseMs: config.CALL_SPECULATION === "on" ? config.CALL_PAUSE_MS : undefined,
    });
    this.turnTaker = new TurnTaker({
      detector,
      transcribe: (audio, speculative) => {
        const text = this.transcribe(audio);
        if (speculative) this.scope.defer(text); // settled before the session's scope closes, also when discarded
        return text;
      },
      onTurn: (turn) => this.onTurn(turn),
      live: () => this.state === "live",
    });
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
        .then(() => this.speakFirstMessage(text))
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

  /**
   * A caller's turn: its transcript (a committed speculation's, whose time on the reply's path,
   * `sttMs`, is then only what was left of it after the turn ended), then the reply.
   */
  private async handleTurn(turn: Turn): Promise<void> {
    if (this.state !== "live") return;
    const { audio, speechStartAt, speechEndAt } = turn.end;
    const stage: Stage = { stage: "stt" };
    try {
      const t0 = Date.now();
      const text = (await turn.transcript()).trim();
      const sttMs = Date.now() - t0;
      this.log("caller turn", {
        audioMs: Math.round((audio.length / this.transport.sampleRate) * 1000),
        sttMs,
        recognized: text.length > 0,
        ...turn.turnTaking,
      });
      if (!text || this.state !== "live") return;
      this.turns.push({
        role: "user",
        text,
        startMs: speechStartAt - this.connectedAt,
        endMs: speechEndAt - this.connectedAt,
        turnTaking: turn.turnTaking,
      });
      this.history.push({ role: "user", content: text });
      this.transport.notify({ type: "transcript", role: "user", text });
      if (this.opts.config.CALL_PIPELINE !== "serial") {
        await this.respondStreamed({ speechEndAt, sttMs }, stage);
        return;
      }
      stage.stage = "llm";
      const t1 = Date.now();
      const result = await this.agentTurn({ onToolRound: this.onToolRound });
      const llmMs = Date.now() - t1;
      // Whole answers: what the tools' start messages said leads the reply.
      const reply = [...result.turns.flatMap((t) => (t.role === "agent" ? [t.text] : [])), result.text].filter(Boolean).join(" ");
      if (!reply || this.state !== "live") return;
      this.afterTurn(result);
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

  /** The agent's turn on the history so far, with its tools (src/tools/runtime.ts); `live` streams it (the streaming loop). */
  private agentTurn(live: LiveTurn, say?: (text: string) => Promise<void>): Promise<AgentTurn> {
    const call = this.call as Call;
    return agentTurn(
      { db: this.scope.db, config: this.opts.config, waitUntil: (p) => this.scope.defer(p) },
      this.payer(),
      this.agent as Agent,
      { kind: "call", id: call.id, transferable: this.opts.kind === "twilio" },
      [...this.history],
      REPLY_MAX_TOKENS,
      say,
      live,
    );
  }

  /** A tool round finished (whole answers): its calls and results join the history, its tool turns the transcript. */
  private readonly onToolRound: NonNullable<LiveTurn["onToolRound"]> = (messages, turns) => {
    this.history.push(...messages);
    for (const t of turns) this.turns.push(this.toolTurn(t));
  };

  /** A tool turn for the transcript, at the time it ran, but not before `afterMs` (the words said ahead of it). */
  private toolTurn(t: ToolTurn, afterMs = 0): TranscriptTurn {
    const endMs = Date.parse(t.at) - this.connectedAt;
    const startMs = Math.max(endMs - t.tool.latencyMs, afterMs);
    return { role: "tool", text: t.text, startMs, endMs: Math.max(endMs, startMs), tool: t.tool };
  }

  /** What the turn decided beyond its words: end the call, or hand it on, once the reply has played. */
  private afterTurn(result: AgentTurn): void {
    if (result.transfer) this.transferTo = result.transfer;
    else if (result.ended) this.endAfterPlayback = "agent-ended-call";
  }

  private async synthesize(text: string): Promise<Int16Array> {
    const { config } = this.opts;
    const voice = this.voice;
    const provider = ttsProvider(config, voice?.provider ?? "openai");
    const model = voice?.provider === "elevenlabs" ? "eleven_multilingual_v2" : config.DEFAULT_TTS_MODEL;
    const audio = await synthesizeWhole(
      this.scope.db,
      this.payer(),
      provider,
      { text, voice: voice?.providerVoiceId ?? "alloy", model, format: "pcm" },
      (p) => this.scope.defer(p),
    );
    return resample(pcm16FromBytes(new Uint8Array(audio)), TTS_PCM_RATE, this.transport.sampleRate);
  }

  /** One chunk's speech, streamed as it is made (24 kHz PCM bytes to `onAudio`), metered. */
  private synthesizeChunk(text: string, onAudio: (bytes: Uint8Array) => void, signal: AbortSignal): Promise<number> {
    const { config } = this.opts;
    const voice = this.voice;
    const provider = ttsProvider(config, voice?.provider ?? "openai");
    const model = voice?.provider === "elevenlabs" ? "eleven_multilingual_v2" : config.DEFAULT_TTS_MODEL;
    return synthesizeStreamed(
      this.scope.db,
      this.payer(),
      provider,
      { text, voice: voice?.providerVoiceId ?? "alloy", model, format: "pcm" },
      onAudio,
      signal,
      (p) => this.scope.defer(p),
    );
  }

  /**
   * The streaming loop's reply: the LLM's tokens cut into sentences, each sentence's speech asked
   * for as soon as it is complete, the audio sent as it arrives (docs/calls.md).
   */
  private async respondStreamed(timing: ReplyTiming, stage: Stage): Promise<void> {
    const cancel = new AbortController();
    const chunker = new SentenceChunker();
    const t1 = Date.now();
    let llmMs: number | null = null;
    const utterance = this.startUtterance(cancel, () => ({
      speechEndAt: timing.speechEndAt,
      sttMs: timing.sttMs,
      llmMs: llmMs ?? Date.now() - t1,
    }));
    /** Tool turns of rounds since the last words were queued: they enter the transcript when the next words play. */
    let ran: ToolTurn[] = [];
    const add = (chunks: string[]) => {
      for (const chunk of chunks) {
        llmMs ??= Date.now() - t1;
        if (this.state !== "live") cancel.abort(); // the call ended: stop making what nobody will hear
        if (cancel.signal.aborted) continue;
        const tools = ran;
        ran = [];
        utterance.add(chunk, tools.length ? () => this.splitTurn(cancel, tools) : undefined);
      }
    };
    // Each round's words are spoken as they stream; the tools' messages are said in their place.
    const round: Round = async (messages, offer) => {
      const streamed = await agentReplyStream(
        this.scope.db,
        this.opts.config,
        this.payer(),
        this.agent as Agent,
        messages,
        REPLY_MAX_TOKENS,
        (text) => add(chunker.push(text)),
        cancel.signal,
        (p) => this.scope.defer(p),
        offer,
      );
      add(chunker.flush());
      return { content: streamed.text.trim(), toolCalls: streamed.toolCalls };
    };
    const say = async (text: string) => {
      add(chunker.flush());
      add([text]);
    };
    stage.stage = "llm";
    try {
      const result = await this.agentTurn(
        {
          round,
          onToolRound: (messages, turns) => {
            this.history.push(...messages);
            ran.push(...turns);
          },
        },
        say,
      );
      if (this.state === "live") this.afterTurn(result);
    } catch (err) {
      utterance.end();
      if (!isCancel(err) && !cancel.signal.aborted) {
        cancel.abort();
        throw err;
      }
    }
    utterance.end();
    stage.stage = "tts";
    await this.finishUtterance(utterance, cancel);
    // Tools after the last words (nothing was said after them): recorded as they ran.
    for (const t of ran) this.turns.push(this.toolTurn(t));
    // Cut before its mark (a barge-in during the goodbye): still end or hand on.
    if (!this.playing && this.state === "live") this.afterPlayback();
  }

  /**
   * Words after a tool round start playing: the agent's turn so far is closed, the round's tool
   * turns follow it, and the words start a new turn, so the transcript reads agent, tool, agent in
   * the order the caller heard them (a tool's time is when it ran, but never before the words said
   * ahead of it: its start message is spoken while it runs).
   */
  private splitTurn(cancel: AbortController, tools: ToolTurn[]): void {
    const playing = this.playing;
    if (playing?.cancel !== cancel || !playing.turn.text) {
      // Nothing said before the tools: they come first, and the turn starts with these words.
      for (const t of tools) this.turns.push(this.toolTurn(t));
      return;
    }
    const at = Date.now();
    playing.turn.endMs = Math.round(at - this.connectedAt);
    for (const t of tools) this.turns.push(this.toolTurn(t, playing.turn.startMs));
    this.transport.notify({ type: "transcript", role: "agent", text: playing.turn.text });
    const turn: TranscriptTurn = { role: "agent", text: "", startMs: playing.turn.endMs, endMs: playing.turn.endMs };
    const said: ChatMessage = { role: "assistant", content: "" };
    this.turns.push(turn);
    this.history.push(said);
    playing.turn = turn;
    playing.said = said;
    playing.fromChunk = playing.chunks.length - 1; // the chunk starting now (on the timeline before this runs)
    playing.sentAt = at;
  }

  /** The first message (or any known text) through the streaming path: its sentences' speech streamed in order. */
  private async speakStreamed(text: string, timing: ReplyTiming | null): Promise<void> {
    const cancel = new AbortController();
    const utterance = this.startUtterance(cancel, timing ? () => ({ ...timing, llmMs: 0 }) : null);
    const chunker = new SentenceChunker();
    for (const chunk of [...chunker.push(text), ...chunker.flush()]) utterance.add(chunk);
    utterance.end();
    await this.finishUtterance(utterance, cancel);
  }

  /**
   * An agent turn whose audio streams: on its first audio the turn enters the transcript (with its
   * latency) and becomes what is playing, so a barge-in can cut it and cancel what is in flight.
   */
  private startUtterance(
    cancel: AbortController,
    latency: (() => { speechEndAt: number; sttMs: number; llmMs: number }) | null,
  ): Utterance {
    const utterance = new Utterance({
      synthesize: (text, onAudio, signal) => this.synthesizeChunk(text, onAudio, signal),
      send: (samples) => {
        if (this.state !== "live") return cancel.abort();
        this.transport.sendAudio(samples);
        this.recorder?.agent(samples, Date.now() - this.connectedAt);
        if (this.playing?.cancel === cancel) this.playing.endsAt = utterance.playhead;
      },
      fromRate: TTS_PCM_RATE,
      rate: this.transport.sampleRate,
      signal: cancel.signal,
    });
    utterance.onFirstAudio = () => {
      const first = utterance.firstAudio as { at: number; ttsMs: number };
      const sentAt = first.at;
      const turn: TranscriptTurn = { role: "agent", text: "", startMs: sentAt - this.connectedAt, endMs: sentAt - this.connectedAt };
      const l = latency?.();
      if (l) {
        const voiceToVoiceMs = sentAt - l.speechEndAt;
        turn.latency = {
          voiceToVoiceMs,
          sttMs: l.sttMs,
          llmMs: l.llmMs,
          ttsMs: first.ttsMs,
          platformMs: voiceToVoiceMs - (l.sttMs + l.llmMs + first.ttsMs),
        };
      }
      const said: ChatMessage = { role: "assistant", content: "" };
      this.turns.push(turn);
      this.history.push(said);
      this.playing = { mark: null, turn, said, sentAt, endsAt: utterance.playhead, chunks: utterance.timeline, fromChunk: 0, cancel };
    };
    utterance.onChunkStart = (text) => {
      if (this.playing?.cancel !== cancel) return; // cut already
      const full = this.playing.turn.text ? `${this.playing.turn.text} ${text}` : text;
      this.playing.turn.text = full;
      this.playing.said.content = full;
    };
    return utterance;
  }

  /** Waits for the utterance's audio to be sent, then closes the turn: its mark, transcript, end-call phrase. */
  private async finishUtterance(utterance: Utterance, cancel: AbortController): Promise<void> {
    try {
      await utterance.done;
    } catch (err) {
      if (!isCancel(err) && !cancel.signal.aborted) {
        cancel.abort();
        throw err;
      }
    }
    const playing = this.playing?.cancel === cancel ? this.playing : null;
    if (!playing || this.state !== "live") return; // cut by a barge-in (which closed the turn), or the call ended
    const turn = playing.turn;
    turn.endMs = Math.round(playing.endsAt - this.connectedAt);
    const mark = `turn-${this.turns.length}`;
    this.transport.sendMark(mark);
    playing.mark = mark;
    playing.cancel = null;
    this.transport.notify({ type: "transcript", role: "agent", text: turn.text });
    const said = turn.text.toLowerCase();
    if (this.agent?.endCallPhrases.some((p) => said.includes(p.toLowerCase()))) this.endAfterPlayback = "agent-ended-call";
    this.scope.defer(saveTranscript(this.scope.db, (this.call as Call).id, [...this.turns]));
  }

  /** The first message: its audio made while the phone rang when there is one, else spoken now. */
  private async speakFirstMessage(text: string): Promise<void> {
    const prepared = await (this.opts.prepared ?? Promise.resolve(null)).catch(() => null);
    if (prepared?.text === text) {
      this.log("first message prepared while ringing");
      return this.speak(text, null, resample(pcm16FromBytes(prepared.pcm), TTS_PCM_RATE, this.transport.sampleRate));
    }
    return this.opts.config.CALL_PIPELINE === "serial" ? this.speak(text, null) : this.speakStreamed(text, null);
  }

  /** Speaks `text` as the agent's turn (`samples`: its audio, when already made); `latency` is set for replies (not the first message). */
  private async speak(
    text: string,
    latency: { speechEndAt: number; sttMs: number; llmMs: number } | null,
    ready?: Int16Array,
  ): Promise<void> {
    const t0 = Date.now();
    const samples = ready ?? (await this.synthesize(text));
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
    const said: ChatMessage = { role: "assistant", content: text };
    this.history.push(said);
    this.transport.notify({ type: "transcript", role: "agent", text });
    const endsAt = sentAt + durationMs;
    this.playing = { mark, turn, said, sentAt, endsAt, chunks: [{ text, startAt: sentAt, endAt: endsAt }], fromChunk: 0, cancel: null };
    const lower = text.toLowerCase();
    if (this.agent?.endCallPhrases.some((p) => lower.includes(p.toLowerCase()))) this.endAfterPlayback = "agent-ended-call";
    this.scope.defer(saveTranscript(this.scope.db, (this.call as Call).id, [...this.turns]));
  }

  /**
   * The caller spoke over the agent: stop its audio, cancel what of the reply is still being made,
   * and keep what the caller heard of it, marked interrupted (in the transcript and the LLM history).
   */
  private bargeIn(at: number): void {
    const playing = this.playing;
    if (!playing) return;
    this.playing = null;
    playing.cancel?.abort();
    this.transport.clear();
    const played = Math.max(0, Math.min(playing.endsAt, at) - playing.sentAt);
    const heard = heardText(playing.chunks.slice(playing.fromChunk), at);
    playing.turn.interrupted = true;
    playing.turn.text = heard;
    playing.said.content = heard;
    playing.turn.endMs = Math.round(playing.turn.startMs + played);
    this.recorder?.cutAgent(at - this.connectedAt);
    this.log("barge-in", {
      playedMs: Math.round(played),
      of: Math.round(playing.endsAt - playing.sentAt),
      streaming: Boolean(playing.cancel),
    });
    if (playing.cancel) {
      this.transport.notify({ type: "transcript", role: "agent", text: heard });
      this.scope.defer(saveTranscript(this.scope.db, (this.call as Call).id, [...this.turns]));
    }
    this.afterPlayback();
  }

  /**
   * The caller hung up while the agent was speaking: its turn keeps what the caller heard (marked
   * interrupted, as after a barge-in), and a reply they heard nothing of is no turn at all (its
   * speech was sent ahead of playback, not heard).
   */
  private keepHeard(at: number): void {
    const playing = this.playing;
    if (!playing) return;
    this.playing = null;
    playing.cancel?.abort();
    this.recorder?.cutAgent(at - this.connectedAt); // the recording holds what was played, as after a barge-in
    const heard = heardText(playing.chunks.slice(playing.fromChunk), at);
    if (!heard) {
      const turn = this.turns.indexOf(playing.turn);
      if (turn !== -1) this.turns.splice(turn, 1);
      const said = this.history.indexOf(playing.said);
      if (said !== -1) this.history.splice(said, 1);
      return;
    }
    if (heard === playing.turn.text && at >= playing.endsAt) return; // heard to its end
    playing.turn.interrupted = true;
    playing.turn.text = heard;
    playing.said.content = heard;
    playing.turn.endMs = Math.round(Math.min(playing.endsAt, at) - this.connectedAt);
  }

  private tick(): void {
    if (this.state !== "live" || !this.agent) return;
    const now = Date.now();
    if (now - this.connectedAt >= this.agent.maxDurationSeconds * 1000) {
      void this.end("max-duration-reached");
      return;
    }
    if (this.playing?.mark && now > this.playing.endsAt + MARK_GRACE_MS) this.onMark(this.playing.mark);
    const idle = !this.playing && this.busy === 0 && !this.turnTaker?.inSpeech;
    if (idle && now - this.lastActivity >= this.agent.silenceTimeoutSeconds * 1000) void this.end("silence-timeout");
  }

  private async fail(err: unknown, stage: Stage): Promise<void> {
    if (this.state === "ended" || this.state === "ending") return;
    const reason: EndedReason =
      err instanceof ApiError && err.code === "insufficient_credits" ? "insufficient-credits" : (`${stage.stage}-provider-error` as const);
    const e = err as Error;
    this.log("call pipeline failed", { stage: stage.stage, error: e?.name, message: e?.message?.slice(0, 300) });
    await this.end(reason);
  }

  // -- the end --------------------------------------------------------------------------------

  /**
   * Ends the call, once. Every way in (the caller hanging up, the carrier's `completed` callback,
   * the watchdog, a failure, an end-call phrase) gets the same ending: the first starts it, the
   * others wait for it. Until the call's final write the session is `ending`, and its Durable
   * Object tells a `completed` callback so (src/calls/durable-object.ts), so the callback never
   * ends the call itself without the transcript and the recording (docs/calls.md, "Twilio").
   */
  end(reason: EndedReason): Promise<void> {
    if (this.ending) return this.ending;
    if (this.state === "ended") return Promise.resolve();
    this.state = "ending";
    this.ending = this.finish(reason);
    return this.ending;
  }

  private async finish(reason: EndedReason): Promise<void> {
    clearInterval(this.ticker);
    this.transport.notify({ type: "ended", reason });
    const call = this.call;
    // A conversation that ended normally keeps what the caller was still saying.
    if (call && statusFor(reason) === "completed") await this.keepPendingSpeech();
    if (call && this.turnTaker) this.log("turn-taking", { speculation: this.opts.config.CALL_SPECULATION, ...this.turnTaker.totals });
    let recording: StoredRecording | null = null;
    try {
      // Bounded: a slow bucket must not hold back the call's end and its webhook.
      if (call && this.recorder && this.opts.recordings)
        recording = await within(this.recorder.store(this.opts.recordings, call), RECORDING_SAVE_MS, "recording upload timed out");
    } catch (err) {
      this.log("recording not saved", { message: (err as Error).message });
    }
    try {
      await finishCall(this.deps, this.opts.callId, reason, call ? [...this.turns] : undefined, recording);
    } catch (err) {
      this.log("ending the call failed", { message: (err as Error).message });
    }
    this.state = "ended";
    if (this.opts.kind === "twilio" && call && reason !== "customer-ended-call" && reason !== "transferred") {
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

  /**
   * transfer_call, once its message played: the carrier hands the caller on (our media stream ends
   * with it), the call records where, and ends `transferred`. When the carrier refuses, the caller
   * is told and the conversation goes on.
   */
  private async handOn(to: TransferDestination): Promise<void> {
    if (this.state !== "live") return;
    const call = this.call as Call;
    this.transferring = true;
    try {
      const sid = (await findCall(this.scope.db, call.id))?.providerCallId ?? call.providerCallId;
      if (!sid) throw new Error("the call has no carrier id yet");
      // Shown to the new party: our number on the line (outbound: the caller id we dialled from; inbound: the number called).
      const callerId = (call.direction === "inbound" ? call.toNumber : call.fromNumber) ?? "";
      await telephonyProvider(this.opts.config).transfer(sid, to.number, callerId, `${this.opts.origin}${TWILIO_DIAL_PATH(call.id)}`);
    } catch (err) {
      this.transferring = false;
      this.transferTo = null;
      this.log("transfer refused", { message: (err as Error).message?.slice(0, 300) });
      if (this.state !== "live") return;
      if (this.closedWhileTransferring || err instanceof CallNotInProgressError) {
        // The caller hung up while we asked: the carrier refuses a call that is over, and its stream closes.
        await this.end("customer-ended-call");
        return;
      }
      this.busy++;
      this.queue = this.queue
        .then(() => this.speakStreamed(TRANSFER_FAILED_MESSAGE, null))
        .catch((e) => this.fail(e, { stage: "tts" }))
        .finally(() => {
          this.busy--;
        });
      return;
    }
    this.log("transferred", { to: to.name ?? "number" });
    await recordTransfer(this.scope.db, call.id, { number: to.number, name: to.name ?? null, at: new Date().toISOString() });
    await this.end("transferred");
  }

  /**
   * The caller spoke and the call ended inside the endpointing wait (they said their piece and hung
   * up): that speech never became a turn. It is transcribed (metered like any turn) and kept in the
   * transcript, without a reply. Bounded, so a slow provider does not hold the ending back.
   */
  private async keepPendingSpeech(): Promise<void> {
    const pending = this.turnTaker?.flush(Date.now()); // hung up in a pause: the pause's transcript is the turn's
    if (!pending) return;
    const { audio, speechStartAt, speechEndAt } = pending.end;
    try {
      const text = (await within(pending.transcript(), PENDING_SPEECH_MS, "transcription timed out")).trim();
      this.log("caller's last words", {
        audioMs: Math.round((audio.length / this.transport.sampleRate) * 1000),
        recognized: !!text,
      });
      if (text)
        this.turns.push({
          role: "user",
          text,
          startMs: speechStartAt - this.connectedAt,
          endMs: speechEndAt - this.connectedAt,
        });
    } catch (err) {
      this.log("caller's last words not transcribed", { message: (err as Error).message });
    }
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

  /** Ending: the call's final write has not happened yet (end() answers the ending under way). */
  get isEnding(): boolean {
    return this.state === "ending";
  }
}
