// One live call's lifecycle in its Durable Object: the media socket connecting (./connect.ts), the
// call's pipeline of stages built and fed (./pipeline/), its timers, what the pipeline decides (an
// end, a transfer, keys to press, a failure), and the end, once (./ending.ts). The media line
// (./media-line.ts) outlives a stream: pressing keys replaces it. docs/calls.md has the behaviour.
import type { Agent, AnsweredBy, Call, TransferDestination } from "../db/schema";
import { openScope, type Scope } from "../db/scope";
import type { AppConfig } from "../env";
import type { WorkersAi } from "../providers/workers-ai";
import { contextOf, type DomainContext } from "../services";
import { connectCall } from "./connect";
import { type Ending, endLiveCall, failureReason, hangUpAtCarrier, log } from "./ending";
import { type PreparedSpeech, preparedAudio } from "./first-message";
import { connectedCallLive } from "./lifecycle";
import { MediaLine } from "./media-line";
import { type CallPipeline, pipelineForCall } from "./pipeline/build";
import type { Frame } from "./pipeline/frames";
import { renderTemplate } from "./prompt";
import type { EndedReason } from "./states";
import { TRANSFER_FAILED_MESSAGE, TransferLeg } from "./transfer";
import type { SessionEvents } from "./transports";
import { type DetectionAction, detects, MachineDetection } from "./voicemail";

const TICK_MS = 200;
export interface SessionOptions {
  config: AppConfig;
  callId: string;
  kind: "twilio" | "web";
  socket: WebSocket;
  origin: string;
  recordings?: R2Bucket;
  /** The campaigns' runners: a campaign call's end wakes its runner (src/campaigns/runner/outcome.ts). */
  campaignRunners?: DurableObjectNamespace;
  /** The Workers AI binding, when the worker has one (streaming transcription through it: STREAMING_STT_PROVIDER). */
  ai?: WorkersAi;
  /** The first message's audio, made while the phone rang (src/calls/first-message.ts). */
  prepared?: Promise<PreparedSpeech | null> | null;
  /** Answering-machine detection's verdict when it came before the media stream (src/calls/voicemail.ts). */
  answeredBy?: AnsweredBy | null;
  waitUntil(p: Promise<unknown>): void;
  onClosed(): void;
}

export class CallSessionRuntime implements SessionEvents {
  private readonly transport: MediaLine;
  private readonly scope: Scope;
  private readonly deps: DomainContext;
  private call: Call | null = null;
  private pipe: CallPipeline | null = null;
  private agent: Agent | null = null;
  private connectedAt = 0;
  private readonly leg = new TransferLeg();
  private ticker: ReturnType<typeof setInterval> | undefined;
  private state: "waiting" | "starting" | "live" | "ending" | "ended" = "waiting";
  private ending: Promise<void> | null = null;
  private detection: MachineDetection | null = null;
  /** When the conversation began (after a machine-detection wait, its end): the silence timeout counts from it. */
  private conversingSince = 0;
  /** A verdict that came while the session was still starting: acted on once it is live. */
  private verdictBeforeLive: AnsweredBy | null;

  constructor(private readonly opts: SessionOptions) {
    this.scope = openScope(opts.config);
    this.deps = contextOf(this.scope, opts.config, opts.origin, { CAMPAIGN_RUNNERS: opts.campaignRunners });
    this.transport = new MediaLine(opts.socket, opts.kind, this);
    this.verdictBeforeLive = opts.answeredBy ?? null;
  }

  onStart(params: Record<string, string>): void {
    if (this.state !== "waiting") return;
    this.state = "starting";
    this.begin(params).catch((err: Error) => {
      log(this.opts.callId, "call session failed to start", { error: err.name, message: err.message });
      void this.end("media-stream-failed");
    });
  }

  onFrame(samples: Int16Array, at: number): void {
    this.feed({ type: "audio-in", samples, at });
  }
  onMark(name: string): void {
    this.feed({ type: "mark", name, at: Date.now() });
  }
  onDigit(digit: string, at: number): void {
    this.feed({ type: "key", digit, at });
  }
  private feed(frame: Frame): void {
    if (this.state !== "live") return;
    // Waiting for the machine-detection verdict, or leaving a voicemail: the callee's audio is recorded, not answered.
    if (frame.type === "audio-in" && this.detection?.muted) this.pipe?.recorder?.caller(frame.samples);
    else this.pipe?.pipeline.push(frame);
  }

  onHangup(cause: string): void {
    if (this.state === "ended" || this.state === "ending") return;
    // While transferring the stream closes as the carrier takes the call (or the caller left).
    if (this.leg.active) this.leg.streamClosed();
    else if (this.state === "waiting") {
      // Before the stream started: the carrier's callback or the watchdog settles the call.
      this.state = "ended";
      this.cleanUp();
    } else {
      log(this.opts.callId, "caller side closed", { cause });
      if (this.state === "live") this.pipe?.pipeline.push({ type: "hangup", at: Date.now() });
      void this.end("customer-ended-call");
    }
  }

  onProtocolError(message: string): void {
    log(this.opts.callId, "media protocol error", { message });
  }

  private async begin(params: Record<string, string>): Promise<void> {
    const { config, kind } = this.opts;
    const c = await connectCall(this.scope.db, config, this.opts.callId, kind, params);
    if (this.state !== "starting") return; // ended while we read (hang-up, watchdog)
    if (!c.ok) {
      if ("fail" in c) return this.end("media-stream-failed", c.call);
      this.transport.close(1008, c.close);
      this.state = "ended";
      return this.cleanUp();
    }
    const { call, agent } = c;
    [this.call, this.agent] = [call, agent];
    this.connectedAt = Date.now();
    const sink = (f: Frame) => this.onOutput(f);
    this.pipe = pipelineForCall({
      ...c,
      ...this.opts,
      scope: this.scope,
      providers: this.deps.providers,
      transport: this.transport,
      connectedAt: this.connectedAt,
      sink,
    });
    this.state = "live";
    this.detection = new MachineDetection(agent.voicemail, call.variables, detects(call, agent), this.connectedAt);
    // The first message is synthesized while the call is marked started (not after); on a phone call it was made while ringing.
    // With machine detection it waits for the verdict (src/calls/voicemail.ts).
    if (this.verdictBeforeLive) this.machineDetected(this.verdictBeforeLive);
    else if (!this.detection.pending) this.converse();
    const deadline = new Date(this.connectedAt + (agent.maxDurationSeconds + config.CALL_WATCHDOG_GRACE_SECONDS) * 1000);
    const live = await connectedCallLive(this.deps, call.id, deadline);
    if (this.state !== "live") return;
    if (!live) return this.end("media-stream-failed"); // a no-op on the record: the call is already over
    this.transport.notify({ type: "status", status: "in-progress" });
    this.ticker = setInterval(() => this.tick(), TICK_MS);
  }

  /** The conversation starts: the first message, if the agent has one. */
  private converse(): void {
    const { call, agent } = this;
    this.conversingSince = Date.now();
    if (call && agent?.firstMessage) void this.sayFirstMessage(call, renderTemplate(agent.firstMessage, call.variables));
  }

  /**
   * The carrier's answering-machine verdict (src/calls/voicemail.ts): a person gets the first
   * message, a machine or a fax the agent's voicemail plan. Kept until the session is live.
   */
  machineDetected(answeredBy: AnsweredBy): void {
    if (this.state === "waiting" || this.state === "starting") {
      this.verdictBeforeLive = answeredBy;
      return;
    }
    if (this.state !== "live" || !this.detection) return;
    this.verdictBeforeLive = null;
    const action: DetectionAction = this.detection.verdict(answeredBy);
    log(this.opts.callId, "machine detection", { answeredBy, action: action.kind });
    if (action.kind === "converse") this.converse();
    else if (action.kind === "hang-up") void this.end("voicemail");
    else if (action.kind === "leave-message") this.pipe?.context.say(action.text);
  }

  /** The first message; made while the phone rang, it is charged to the call now that it plays (src/calls/first-message.ts). */
  private async sayFirstMessage(call: Call, text: string): Promise<void> {
    const payer = { db: this.scope.db, organizationId: call.organizationId, callId: call.id };
    const prepared = await preparedAudio(this.opts.prepared, text, payer, (p) => this.deps.waitUntil(p));
    if (this.state === "live") this.pipe?.context.say(text, prepared);
  }

  /** What leaves the pipeline: the conversation's decisions and failures. */
  private onOutput(frame: Frame): void {
    if (frame.type === "action" && frame.action.kind === "end") void this.end(frame.action.reason);
    else if (frame.type === "action" && frame.action.kind === "hand-on") void this.transfer(frame.action.to);
    else if (frame.type === "action" && frame.action.kind === "press") void this.press(frame.action.digits);
    else if (frame.type === "error" && this.live) void this.end(failureReason(this.opts.callId, frame.error, frame.stage));
  }

  /** transfer_call once its message played (src/calls/transfer.ts); refused, the caller is told and the conversation goes on. */
  private async transfer(to: TransferDestination): Promise<void> {
    if (this.state !== "live" || !this.call) return;
    const handed = await this.leg.hand(this.scope, this.opts.config, this.opts.origin, this.call, to);
    if (handed === "transferred") return this.end("transferred");
    if (this.state !== "live") return;
    if (handed === "caller-gone") return this.end("customer-ended-call");
    this.pipe?.context.say(TRANSFER_FAILED_MESSAGE);
  }

  /**
   * send_dtmf once its reply played: the carrier plays the keys and brings the call back on a new
   * stream (./media-line.ts), and the conversation goes on over it. Refused, the agent is told.
   */
  private async press(digits: string): Promise<void> {
    if (this.state !== "live" || !this.call) return;
    const pressed = await this.transport.press(this.scope, this.opts.config, this.opts.origin, this.call, digits);
    if (this.state !== "live") return;
    if (pressed === "caller-gone") return void this.end("customer-ended-call");
    if (pressed === "lost") return void this.end("media-stream-failed");
    if (pressed === "pressed") return this.pipe?.recorder?.callerUntil(Date.now() - this.connectedAt);
    this.pipe?.context.note(`The keys ${digits} could not be pressed: the phone line refused them.`);
  }

  /** The carrier's new stream while keys are pressed (the call's Durable Object hands it over). */
  attach(socket: WebSocket): boolean {
    if (this.state !== "live" || !this.transport.awaitsStream) return false;
    this.transport.attach(socket);
    return true;
  }

  private tick(): void {
    const { pipe, agent } = this;
    if (this.state !== "live" || !pipe || !agent) return;
    const now = Date.now();
    if (now - this.connectedAt >= agent.maxDurationSeconds * 1000) return void this.end("max-duration-reached");
    if (this.detection?.expired(now)) {
      log(this.opts.callId, "machine detection late: the agent speaks");
      this.converse();
    }
    // The voicemail message has played (its mark came back): hang up.
    if (this.detection?.leavingMessage && pipe.context.idle && !pipe.out.playing) return void this.end("voicemail");
    pipe.out.tick(now);
    pipe.keypad.tick(now);
    // The agent's own wait for a machine-detection verdict is not the callee's silence.
    if (this.detection?.pending) return;
    const quietSince = Math.max(pipe.lastActivity(), this.conversingSince);
    if (pipe.idle() && now - quietSince >= agent.silenceTimeoutSeconds * 1000) void this.end("silence-timeout");
  }

  /**
   * Ends the call, once: every way in (hang-up, the carrier's `completed`, the watchdog, a failure, an
   * end-call phrase) gets the same ending. Until the final write the session is `ending`, which its
   * Durable Object tells a `completed` callback (docs/calls.md, "Twilio").
   */
  end(reason: EndedReason, call?: Call): Promise<void> {
    if (this.ending) return this.ending;
    this.call ??= call ?? null;
    if (this.state === "ended") return Promise.resolve();
    this.state = "ending";
    clearInterval(this.ticker);
    this.pipe?.pipeline.push({ type: "end" });
    this.transport.notify({ type: "ended", reason });
    this.ending = this.finish(reason);
    return this.ending;
  }

  private async finish(reason: EndedReason): Promise<void> {
    if (this.pipe) this.opts.waitUntil(this.pipe.tracer.finish(reason)); // the call span ends now
    const e: Ending = { ...this.opts, scope: this.scope, deps: this.deps, call: this.call, pipe: this.pipe };
    await endLiveCall(e, reason);
    this.state = "ended";
    await hangUpAtCarrier(e, reason);
    this.transport.close(1000, reason);
    this.cleanUp();
  }

  private cleanUp(): void {
    clearInterval(this.ticker);
    // A stage may still be inside a provider call whose settlement needs the pool: it closes after them.
    this.opts.waitUntil((this.pipe?.pipeline.settled() ?? Promise.resolve()).finally(() => this.scope.close()));
    this.opts.onClosed();
  }

  /** Live (the watchdog ends it when overdue), or ending: the final write is still to come (end() answers it). */
  get live(): boolean {
    return this.state === "live" || this.state === "starting";
  }
  /** Connected, its pipeline running (not still reading the call as it starts): a hang-up on request is the session's. */
  get connected(): boolean {
    return this.state === "live";
  }
  get isEnding(): boolean {
    return this.state === "ending";
  }
  /** Keys are being pressed: the call's next media stream is this session's (attach). */
  get awaitsStream(): boolean {
    return this.state === "live" && this.transport.awaitsStream;
  }
}
