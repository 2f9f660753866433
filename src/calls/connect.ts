// A call's media connecting: the call must be live, a Twilio stream must carry the call's one-time
// stream token (Twilio passes our <Parameter name="token"> back in `start`), and the call's agent
// must still exist. What the session runs with, or why it refuses.

import type { Db } from "../db/client";
import type { Agent, Call, Voice } from "../db/schema";
import type { AppConfig } from "../env";
import { sha256Hex, timingSafeEqual } from "../lib/crypto";
import { defaultVoiceId } from "../voices/service";
import { isEnded } from "./lifecycle";
import { findCall, findCallAgent } from "./queries/calls";

export type Connected =
  | { ok: true; call: Call; agent: Agent; voice: Voice | null }
  /** `close`: refuse the socket with this reason (nothing to end); `fail`: end the call `media-stream-failed`. */
  | { ok: false; close: string }
  | { ok: false; fail: string; call: Call };

export async function connectCall(
  db: Db,
  config: AppConfig,
  callId: string,
  kind: "twilio" | "web",
  params: Record<string, string>,
): Promise<Connected> {
  const call = await findCall(db, callId);
  if (!call || isEnded(call)) return { ok: false, close: "this call is not live" };
  if (kind === "twilio") {
    const given = await sha256Hex(params.token ?? "");
    const enc = new TextEncoder();
    if (!call.streamTokenHash || !timingSafeEqual(enc.encode(given), enc.encode(call.streamTokenHash))) {
      console.log(JSON.stringify({ level: "info", msg: "media stream refused: wrong stream token", callId }));
      return { ok: false, close: "stream token refused" };
    }
  }
  const found = await findCallAgent(db, call, defaultVoiceId(config));
  if (!found) {
    console.log(JSON.stringify({ level: "info", msg: "the call's agent was deleted before the call connected", callId }));
    return { ok: false, fail: "agent-deleted", call };
  }
  return { ok: true, call, ...found };
}
