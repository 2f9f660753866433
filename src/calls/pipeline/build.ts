// One call's pipeline, assembled: transport in → turn detection → STT → keypad → context and tools → LLM →
// TTS → transport out, with the recorder as an observer. The session (src/calls/session.ts) owns
// it and takes what leaves it: actions, errors.
import { TURN_TAKING_DEFAULTS } from "../../db/schema";
import type { AppConfig } from "../../env";
import { otlpConfig } from "../../lib/otlp";
import { KEYPAD_INSTRUCTIONS } from "../keypad";
import { renderTemplate } from "../prompt";
import { saveTranscript } from "../queries/calls";
import { Recorder } from "../recording";
import type { Transport } from "../transports";
import { TurnDetector } from "../turns";
import { type ContextOptions, ContextStage } from "./context";
import type { Frame } from "./frames";
import { KeypadStage } from "./keypad";
import { LlmStage } from "./llm";
import { type Clock, type Observer, Pipeline, systemClock } from "./pipeline";
import { type CallPorts, callPorts, type PortContext } from "./providers";
import { SttStage } from "./stt";
import { StreamingSttStage } from "./stt-stream";
import { type CallTracer, callTracer, NO_TRACE, traceProviders } from "./trace";
import { TransportOutStage } from "./transport-out";
import { TtsStage } from "./tts";
import { TurnDetectionStage } from "./turn-detection";
import { detectorWaits, type TurnPlan, turnPlanOf } from "./turn-plan";

export interface CallPipeline {
  pipeline: Pipeline;
  recorder: Recorder | null;
  turns: TurnDetectionStage;
  stt: SttStage | StreamingSttStage;
  context: ContextStage;
  keypad: KeypadStage;
  out: TransportOutStage;
  /** Nothing going on: the caller silent, no transcript or reply under way, nothing playing (the silence timeout runs). */
  idle(): boolean;
  /** When the conversation last moved (speech, a transcript, a reply done, a mark played); the silence timeout counts from it. */
  lastActivity(): number;
  /** What the caller was saying as the call ends (not yet a turn): its times, and its transcript to come. */
  lastWords(at: number): LastWords | null;
  /** The call's OpenTelemetry trace (a no-op without OTEL_EXPORTER_OTLP_ENDPOINT): `finish` exports it at the end. */
  tracer: CallTracer;
}

export interface LastWords {
  startAt: number;
  endAt: number;
  audioMs: number;
  text: Promise<string>;
}

export interface BuildOptions extends ContextOptions {
  config: Pick<AppConfig, "CALL_ENDPOINTING_MS" | "CALL_SPECULATION" | "CALL_PAUSE_MS" | "CALL_PIPELINE" | "CALL_MIN_INTERRUPTION_MS">;
  transport: Transport;
  ports: CallPorts;
  endCallPhrases: readonly string[];
  /** The agent's turn-taking made concrete; omitted: the deployment's defaults. */
  turnPlan?: TurnPlan;
  recorder: Recorder | null;
  clock: Clock;
  sink(frame: Frame): void;
  observers?: Observer[];
}

export function buildCallPipeline(o: BuildOptions): CallPipeline {
  const { config, transport, clock } = o;
  const { sampleRate } = transport;
  const streamed = o.ports.stream;
  const plan = o.turnPlan ?? turnPlanOf(TURN_TAKING_DEFAULTS, config);
  const speculation = config.CALL_SPECULATION === "on";
  // Streaming: voice activity only marks stretches of sound (the provider's turn model ends turns);
  // batch: it ends the turn after the longest wait, with speculation on its pauses (the shortest).
  const detector = new TurnDetector(
    streamed ? { sampleRate, endpointingMs: VAD_SEGMENT_MS } : { sampleRate, ...detectorWaits(plan, speculation) },
  );
  const turns = new TurnDetectionStage(detector, sampleRate);
  const stt = streamed
    ? new StreamingSttStage(streamed, clock, {
        sampleRate,
        minInterruptionMs: plan.interruptionMinMs,
        minInterruptionWords: plan.interruptionMinWords,
        eagerness: plan.eagerness,
        ...(o.ports.prefetch && { onHeard: (text: string) => o.ports.prefetch?.hint(text) }),
      })
    : new SttStage(o.ports.transcribe, clock, plan.eagerness, o.ports.chargeTurn);
  const context = new ContextStage(o);
  const keypad = new KeypadStage();
  const out = new TransportOutStage(transport, o.endCallPhrases, clock);
  const stages = [
    turns,
    stt,
    keypad,
    context,
    new LlmStage(o.ports.llm, clock, config.CALL_PIPELINE),
    new TtsStage(o.ports.synthesize, transport.sampleRate, clock, o.ports.openSpeech),
    out,
  ];
  const observers = [...(o.observers ?? [])];
  if (o.recorder) observers.push(recording(o.recorder, o.connectedAt));
  const idle = () => !out.playing && stt.pending === 0 && context.idle && !turns.inSpeech && keypad.idle;
  let moved = o.connectedAt;
  observers.push((frame) => {
    if (ACTIVITY.has(frame.type)) moved = clock.now();
  });
  const lastActivity = () => moved;
  const lastWords = (at: number): LastWords | null => {
    if (stt instanceof StreamingSttStage) {
      const words = stt.lastWords();
      return (
        words && { startAt: words.startAt, endAt: words.endAt, audioMs: words.endAt - words.startAt, text: Promise.resolve(words.text) }
      );
    }
    const end = turns.flush(at);
    if (!end) return null;
    // Hung up in a pause: the pause's transcript is the turn's.
    const audioMs = Math.round((end.audio.length / sampleRate) * 1000);
    return { startAt: end.speechStartAt, endAt: end.speechEndAt, audioMs, text: stt.lastWords(end).transcript() };
  };
  const pipeline = new Pipeline(stages, o.sink, observers);
  return { pipeline, recorder: o.recorder, turns, stt, context, keypad, out, idle, lastActivity, lastWords, tracer: NO_TRACE };
}

/** The recorder as an observer: the caller's frames, the agent's audio where it played, cut where the caller cut in. */
export function recording(recorder: Recorder, connectedAt: number): Observer {
  return (frame) => {
    if (frame.type === "audio-in") recorder.caller(frame.samples);
    else if (frame.type === "audio-out") recorder.agent(frame.samples, frame.at - connectedAt);
    else if (frame.type === "agent-cut") recorder.cutAgent(frame.at - connectedAt);
  };
}

/** With streaming transcription, voice activity ends a stretch of sound after this much quiet. */
const VAD_SEGMENT_MS = 200;
const VOICE_INSTRUCTIONS = `You are speaking on a live voice call. Answer in one to three short spoken sentences, without lists, markdown or emoji. ${KEYPAD_INSTRUCTIONS}`;
/** Frames that count as the conversation moving (the silence timeout counts from the last). */
const ACTIVITY = new Set<Frame["type"]>([
  "speech-started",
  "speech-paused",
  "speech-resumed",
  "turn-ended",
  "transcript",
  "key",
  "reply-done",
  "mark",
]);

export interface CallSetup extends Omit<PortContext, "sampleRate" | "transferable"> {
  kind: "twilio" | "web";
  transport: Transport;
  connectedAt: number;
  /** Where recordings go: none, no recorder. */
  recordings?: R2Bucket;
  sink(frame: Frame): void;
}

/** The pipeline of a connected call: its agent's prompt, phrases and voice, its transcript saved as it goes. */
export function pipelineForCall(s: CallSetup): CallPipeline {
  const { scope, call, agent, config } = s;
  const prompt = renderTemplate(agent.systemPrompt, call.variables);
  const tracer = callTracer({
    ...{ otlp: otlpConfig(config), callId: call.id, agentId: agent.id, organizationId: call.organizationId },
    ...{ type: call.type, direction: call.direction, clock: systemClock, connectedAt: s.connectedAt },
    providers: traceProviders(config, s.providers, agent, s.voice, s.ai),
  });
  const pipe = buildCallPipeline({
    config: s.config,
    transport: s.transport,
    ports: callPorts({ ...s, sampleRate: s.transport.sampleRate, transferable: s.kind === "twilio" }),
    systemPrompt: prompt ? `${prompt}\n\n${VOICE_INSTRUCTIONS}` : VOICE_INSTRUCTIONS,
    connectedAt: s.connectedAt,
    save: (turns) => scope.defer(saveTranscript(scope.db, call.id, turns)),
    endCallPhrases: agent.endCallPhrases,
    turnPlan: turnPlanOf({ ...TURN_TAKING_DEFAULTS, ...agent.turnTaking }, s.config),
    recorder: s.recordings ? new Recorder(s.transport.sampleRate, agent.maxDurationSeconds) : null,
    clock: systemClock,
    sink: s.sink,
    observers: [tracer.observer],
  });
  return { ...pipe, tracer };
}
