// The AMD callback's verdict on its way to the call (docs/campaigns.md, "Voicemail"): stored, then
// handed to the call's session (./voicemail.ts decides what it does). Apart from voicemail.ts, which
// the session itself imports, so the session's module does not import its own Durable Object's stub.
import type { AnsweredBy, Call } from "../db/schema";
import type { Op } from "../services";
import { isEnded } from "./lifecycle";
import { saveAnsweredBy } from "./queries/answered-by";
import { tellSessionWhoAnswered } from "./stub";

/**
 * The AMD callback's work (the route checked the signature and that `call` is the callback's): the
 * verdict is stored (the first one only), and a call still under way hands it to its session. A
 * verdict for an ended call is only stored: nothing else happens to it.
 */
export async function recordMachineVerdict({
  ctx,
  input: { call, answeredBy },
}: Op<{ call: Call; answeredBy: AnsweredBy }, "db" | "callSessions">): Promise<"told-session" | "stored"> {
  const first = await saveAnsweredBy(ctx.db, call.id, answeredBy);
  if (!first || isEnded(call)) return "stored";
  await tellSessionWhoAnswered(ctx.callSessions(), call.id, answeredBy);
  return "told-session";
}
