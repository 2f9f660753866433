// The first message of a phone call, synthesized while the phone rings (docs/calls.md): the worker
// asks the call's Durable Object to prepare it right after the carrier accepted the dial, so that on
// answer its audio plays at once instead of after a speech request. Nobody hears it while the phone
// rings, so it is the platform's cost until then: it is charged to the call (held, then settled, like
// any of the call's speech) only when the call connected and it starts playing. A busy line or a
// callee who never answers costs the workspace nothing for it (docs/calls.md, "Credits").
import type { Db } from "../db/client";
import { openScope } from "../db/scope";
import type { AppConfig } from "../env";
import { meter } from "../metering/metered";
import { characters } from "../metering/speech";
import { contextOf } from "../services";
import { defaultVoiceId } from "../voices/service";
import { isEnded } from "./lifecycle";
import { renderTemplate } from "./prompt";
import { findAgentOfCall, findCall, findVoiceFor } from "./queries/calls";

export interface PreparedSpeech {
  /** The text it speaks (the rendered first message), so a changed agent is not spoken from an old recording. */
  text: string;
  /** 16-bit PCM, 24 kHz (the providers' pcm). */
  pcm: Uint8Array;
  /** Who made it, for the charge when it plays. */
  provider: string;
  model: string;
}

const log = (level: "info" | "warn", msg: string, extra: Record<string, unknown>) => console.log(JSON.stringify({ level, msg, ...extra }));

/**
 * The call's first message as audio, or null (no first message, the call is over, or the speech
 * failed: the session then speaks it itself). Not metered here: see preparedAudio.
 */
export async function prepareFirstMessage(config: AppConfig, callId: string): Promise<PreparedSpeech | null> {
  const scope = openScope(config);
  try {
    const { db } = scope;
    const call = await findCall(db, callId);
    if (!call || isEnded(call) || !call.agentId) return null;
    const agent = await findAgentOfCall(db, call);
    const text = agent?.firstMessage ? renderTemplate(agent.firstMessage, call.variables) : "";
    if (!agent || !text) return null;
    const voice = await findVoiceFor(db, call.organizationId, agent.voiceId ?? defaultVoiceId(config));
    const { providers } = contextOf(scope, config);
    const provider = providers.tts(voice?.provider ?? "openai");
    const model = providers.ttsModel(voice?.provider ?? "openai");
    const audio = await provider.synthesize({ text, voice: voice?.providerVoiceId ?? "alloy", model, format: "pcm" });
    // The platform's cost until the call connects and it plays (then the call is charged for it).
    log("info", "first message prepared", { callId, provider: provider.name, model, characters: characters(text) });
    return { text, pcm: new Uint8Array(audio), provider: provider.name, model };
  } catch (err) {
    log("warn", "first message not prepared", { callId, error: (err as Error).name });
    return null;
  } finally {
    await scope.close();
  }
}

/**
 * The prepared audio when it speaks `text` (the agent may have changed since), charged to the call
 * now that the call is connected and it is about to play: its characters are held, then settled
 * (in the background) like any speech of the call. Nothing when it does not fit, or when the hold is
 * refused (out of credits): the session then makes it itself, metered, and a workspace out of
 * credits ends the call as usual.
 */
export async function preparedAudio(
  prepared: Promise<PreparedSpeech | null> | null | undefined,
  text: string,
  payer: { db: Db; organizationId: string; callId: string },
  settleInBackground: (work: Promise<unknown>) => void,
): Promise<Uint8Array | undefined> {
  const speech = await (prepared ?? Promise.resolve(null)).catch(() => null);
  if (speech?.text !== text) return undefined;
  const { db, organizationId, callId } = payer;
  const n = characters(text);
  try {
    await meter(
      db,
      { organizationId, apiKeyId: null, method: "CALL", endpoint: `/v1/calls/${callId}`, callId },
      { modality: "tts", provider: speech.provider, model: speech.model, maxQuantity: n },
      async () => ({ result: undefined, quantity: n }),
      settleInBackground,
    );
  } catch (err) {
    log("info", "prepared first message not charged; the session speaks it", { callId, error: (err as Error).name });
    return undefined;
  }
  log("info", "first message prepared while ringing", { callId });
  return speech.pcm;
}
