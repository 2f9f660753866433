// The stages' provider ports for one call, bound to its payer (every request metered to the call,
// like the Models API: docs/calls.md, "Credits") and its agent and voice. The stages know only
// these functions, so a unit test gives them scripted ones.
import { type Agent, type Call, TURN_TAKING_DEFAULTS, type Voice } from "../../db/schema";
import type { Scope } from "../../db/scope";
import type { AppConfig } from "../../env";
import type { Prefetch } from "../../knowledge/prefetch";
import { prefetchFor } from "../../knowledge/retrieve";
import { pcmToWav } from "../../lib/audio";
import { agentReplyStream } from "../../metering/agent-reply";
import { meter, type Payer } from "../../metering/metered";
import { speechSession, synthesizeStreamed, synthesizeWhole } from "../../metering/speech";
import type { Providers } from "../../providers/registry";
import type { WorkersAi } from "../../providers/workers-ai";
import { workersAiModelOf } from "../../providers/workers-ai";
import { agentTurn } from "../../tools/runtime";
import { pcm16ToBytes } from "../codec";
import type { LlmPort } from "./llm";
import type { Charge, Transcribe } from "./stt";
import type { StreamPort } from "./stt-stream";
import type { Synthesize } from "./tts";
import type { OpenSpeech } from "./tts-input";
import { streamTurnOptions, turnPlanOf } from "./turn-plan";

const REPLY_MAX_TOKENS = 300;

export interface CallPorts {
  transcribe: Transcribe;
  /** Charges a turn committed from a speculation its audio (batch transcription: docs/calls.md, "Turn-taking"). */
  chargeTurn: Charge;
  /** The streaming transcription, when this deployment streams (CALL_TRANSCRIPTION, a streaming provider). */
  stream: StreamPort | null;
  llm: LlmPort;
  /** A request per chunk. */
  synthesize: Synthesize;
  /** A voice that takes text as it is written (Cartesia's contexts): one session per reply (docs/calls.md, "Input streaming"); null: per chunk. */
  openSpeech: OpenSpeech | null;
  /** The agent's knowledge searched as the caller speaks (streaming transcription); null when it retrieves no passages every turn. */
  prefetch: Prefetch | null;
}

export interface PortContext {
  scope: Scope;
  config: AppConfig;
  /** The deployment's providers, from the call's context (src/services.ts). */
  providers: Providers;
  call: Call;
  agent: Agent;
  voice: Voice | null;
  /** The transport's sample rate (the caller's audio). */
  sampleRate: number;
  /** Whether the call can be handed on (a phone call). */
  transferable: boolean;
  /** The Workers AI binding (`env.AI`), when the worker has one: STREAMING_STT_PROVIDER=workers-ai streams through it. */
  ai?: WorkersAi;
}

export function payerOf(call: Call): Payer {
  return { organizationId: call.organizationId, apiKeyId: null, method: "CALL", endpoint: `/v1/calls/${call.id}`, callId: call.id };
}

export function callPorts(c: PortContext): CallPorts {
  const { scope, config, providers, call, agent, voice } = c;
  const payer = payerOf(call);
  const defer = (p: Promise<unknown>) => scope.defer(p);
  const tts = providers.tts(voice?.provider ?? "openai");
  const speech = {
    voice: voice?.providerVoiceId ?? "alloy",
    model: providers.ttsModel(voice?.provider ?? "openai"),
    format: "pcm" as const,
  };
  const streaming = config.CALL_TRANSCRIPTION === "batch" ? null : providers.streamingStt(c.ai);
  const prefetch = prefetchFor({ db: scope.db, config, waitUntil: defer, providers }, payer, agent.knowledge);
  if (config.CALL_TRANSCRIPTION === "streaming" && !streaming)
    throw new Error(`CALL_TRANSCRIPTION=streaming needs a streaming provider (${providers.streamingSttRequirement()})`);
  return {
    stream: streaming && {
      open: (onEvent) =>
        streaming.open(
          {
            model: config.STREAMING_STT_MODEL,
            sampleRate: c.sampleRate,
            encoding: "linear16",
            language: agent.language.split("-")[0],
            // The agent's turn-taking (turn-plan.ts); Flux's early end of turn starts the reply speculatively (docs/calls.md, "Speculation").
            ...streamTurnOptions(turnPlanOf({ ...TURN_TAKING_DEFAULTS, ...agent.turnTaking }, config), config.CALL_SPECULATION === "on"),
          },
          onEvent,
        ),
      async meter(seconds) {
        const ms = Math.ceil(seconds * 1000);
        // Through Workers AI the model is Cloudflare's, at Cloudflare's price (src/metering/prices.ts).
        const viaWorkersAi = config.STREAMING_STT_PROVIDER === "workers-ai";
        const model = (viaWorkersAi && workersAiModelOf(config.STREAMING_STT_MODEL)) || config.STREAMING_STT_MODEL;
        await meter(
          scope.db,
          payer,
          { modality: "stt", provider: viaWorkersAi ? "workers-ai" : streaming.name, model, maxQuantity: ms },
          async () => ({ result: null, quantity: ms }),
          defer,
        );
      },
    },
    async transcribe(audio, speculative) {
      const provider = providers.stt();
      const model = config.DEFAULT_STT_MODEL;
      const ms = Math.ceil((audio.length / c.sampleRate) * 1000);
      const wav = pcmToWav(pcm16ToBytes(audio), c.sampleRate);
      const request = () =>
        provider.transcribe({
          audio: new Blob([wav], { type: "audio/wav" }),
          filename: "turn.wav",
          model,
          language: agent.language.split("-")[0],
        });
      if (speculative) {
        // Ours to pay, not the caller's: the turn that commits it is charged its audio once (chargeTurn).
        const text = request().then((r) => {
          console.log(
            JSON.stringify({
              level: "info",
              msg: "speculative transcription",
              callId: call.id,
              provider: provider.name,
              model,
              audioMs: ms,
            }),
          );
          return r.text;
        });
        defer(text); // settled before the session's scope closes, also when discarded
        return text;
      }
      const metered = meter(
        scope.db,
        payer,
        { modality: "stt", provider: provider.name, model, maxQuantity: ms },
        async () => ({ result: await request(), quantity: ms }),
        defer,
      );
      return metered.then((r) => r.text);
    },
    async chargeTurn(audio) {
      const ms = Math.ceil((audio.length / c.sampleRate) * 1000);
      const stt = { modality: "stt", provider: providers.stt().name, model: config.DEFAULT_STT_MODEL, maxQuantity: ms } as const;
      await meter(scope.db, payer, stt, async () => ({ result: null, quantity: ms }), defer);
    },
    llm: {
      turn: (messages, live, say) =>
        agentTurn(
          { db: scope.db, config, waitUntil: defer, providers },
          payer,
          agent,
          { kind: "call", id: call.id, transferable: c.transferable },
          [...messages],
          REPLY_MAX_TOKENS,
          say,
          { ...live, ...(prefetch && { prefetch }) },
        ),
      stream: (messages, offer, onText, signal) =>
        agentReplyStream(scope.db, providers, payer, agent, messages, REPLY_MAX_TOKENS, onText, signal, defer, offer),
    },
    synthesize:
      config.CALL_PIPELINE === "serial"
        ? async (text, onAudio) => {
            onAudio(new Uint8Array(await synthesizeWhole(scope.db, payer, tts, { text, ...speech }, defer)));
          }
        : (text, onAudio, signal) => synthesizeStreamed(scope.db, payer, tts, { text, ...speech }, onAudio, signal, defer),
    openSpeech:
      config.CALL_PIPELINE !== "serial" && tts.openStream
        ? (signal) => speechSession(scope.db, payer, tts, { text: "", ...speech }, signal, defer)
        : null,
    // Only a streamed transcription hears the words before the turn ends.
    prefetch: streaming ? prefetch : null,
  };
}
