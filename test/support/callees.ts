// The telephony sandbox's callees (dev/sandbox/callee.ts, docs/sandbox.md: each number plays one
// scenario) and placing a phone call to them through the API, for the call tests.
import type { CallView } from "./calls";
import { json, type Workspace } from "./harness";

export const CONVERSATION = "+12025550100";
export const SILENT = "+12025550101";
/** The busy callee: the call ends at once, without a conversation. */
export const BUSY = "+12025550102";
export const NO_ANSWER = "+12025550103";
export const UNREACHABLE = "+12025550104";
export const CHATTERBOX = "+12025550105";
export const BARGE_IN = "+12025550106";
export const HANGS_UP = "+12025550107";
/** Asks for an order lookup, then for two tools that fail, then says "end call" (dev/sandbox/callee.ts TOOLS_SCRIPT). */
export const TOOLS_CALLEE = "+12025550108";
/** Asks to be transferred to billing. */
export const TRANSFER_CALLEE = "+12025550109";
/** An answering machine: a greeting, a beep, then it records (dev/sandbox/amd.ts). */
export const MACHINE = "+12025550131";
/** A fax machine: its calling tone; detection says `fax`. */
export const FAX = "+12025550132";
export const INVALID = "+15005550001";
/** The platform's shared caller id: the stack's TWILIO_FROM_NUMBERS. */
export const PLATFORM = "+15005550006";

/** POST /v1/agents/{id}/calls, answered as the API answers it. */
export const dial = (ws: Workspace, agentId: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  ws.api(`/v1/agents/${agentId}/calls`, { method: "POST", json: body, headers });

/** The call of a 201 answer; anything else throws with the answer's body. */
export async function accepted(res: Response): Promise<CallView> {
  if (res.status !== 201) throw new Error(`place call: ${res.status} ${await res.text()}`);
  return json<CallView>(res);
}

/** Places a call that the API must accept. */
export const place = async (ws: Workspace, agentId: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  accepted(await dial(ws, agentId, body, headers));

/** A call that no longer runs (whatever its outcome). */
export const finished = (c: CallView) => !["queued", "ringing", "in-progress"].includes(c.status);
