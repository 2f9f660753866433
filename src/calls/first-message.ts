// The first message of a phone call, synthesized while the phone rings (docs/calls.md): the worker
// asks the call's Durable Object to prepare it right after the carrier accepted the dial, so that on
// answer its audio plays at once instead of after a speech request. Metered like any of the call's
// speech (held, then charged), also when nobody answers.
import { eq } from "drizzle-orm";
import { agents, voices } from "../db/schema";
import { openScope } from "../db/scope";
import type { AppConfig } from "../env";
import { synthesizeWhole } from "../metering/speech";
import { defaultTtsModel, ttsProvider } from "../providers/registry";
import { isEnded } from "./lifecycle";
import { renderTemplate } from "./prompt";
import { findCall } from "./store";

export interface PreparedSpeech {
  /** The text it speaks (the rendered first message), so a changed agent is not spoken from an old recording. */
  text: string;
  /** 16-bit PCM, 24 kHz (the providers' pcm). */
  pcm: Uint8Array;
}

/** The call's first message as audio, or null (no first message, the call is over, or the speech failed: the session then speaks it itself). */
export async function prepareFirstMessage(config: AppConfig, callId: string, defaultVoiceId: string): Promise<PreparedSpeech | null> {
  const scope = openScope(config);
  try {
    const { db } = scope;
    const call = await findCall(db, callId);
    if (!call || isEnded(call) || !call.agentId) return null;
    const [agent] = await db.select().from(agents).where(eq(agents.id, call.agentId));
    const text = agent?.firstMessage ? renderTemplate(agent.firstMessage, call.variables) : "";
    if (!agent || !text) return null;
    const [voice] = await db
      .select()
      .from(voices)
      .where(eq(voices.id, agent.voiceId ?? defaultVoiceId));
    const provider = ttsProvider(config, voice?.provider ?? "openai");
    const model = defaultTtsModel(config, voice?.provider ?? "openai");
    const audio = await synthesizeWhole(
      db,
      { organizationId: call.organizationId, apiKeyId: null, method: "CALL", endpoint: `/v1/calls/${call.id}`, callId: call.id },
      provider,
      { text, voice: voice?.providerVoiceId ?? "alloy", model, format: "pcm" },
    );
    return { text, pcm: new Uint8Array(audio) };
  } catch (err) {
    console.log(JSON.stringify({ level: "warn", msg: "first message not prepared", callId, error: (err as Error).name }));
    return null;
  } finally {
    await scope.close();
  }
}

/** The prepared audio when it speaks `text` (the agent may have changed since), else nothing: the session makes it. */
export async function preparedAudio(
  prepared: Promise<PreparedSpeech | null> | null | undefined,
  text: string,
  callId: string,
): Promise<Uint8Array | undefined> {
  const speech = await (prepared ?? Promise.resolve(null)).catch(() => null);
  if (speech?.text !== text) return undefined;
  console.log(JSON.stringify({ level: "info", msg: "first message prepared while ringing", callId }));
  return speech.pcm;
}
