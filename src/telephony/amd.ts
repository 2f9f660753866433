// Twilio's answering-machine detection verdict, as its AsyncAmdStatusCallback POSTs it (form
// parameters, signed with X-Twilio-Signature like a status callback): CallSid, AccountSid,
// AnsweredBy and MachineDetectionDuration (ms). docs/campaigns.md, "Voicemail", says what we do with it.
import { ANSWERED_BY, type AnsweredBy } from "../db/schema/calls";

export interface MachineVerdict {
  callSid: string;
  answeredBy: AnsweredBy;
  /** How long the carrier listened before deciding (ms); null when it did not say. */
  durationMs: number | null;
}

/** The verdict in a callback's parameters; null without a CallSid. A value we do not know reads as `unknown`. */
export function parseMachineVerdict(params: URLSearchParams): MachineVerdict | null {
  const callSid = params.get("CallSid") ?? "";
  if (!callSid) return null;
  const raw = params.get("AnsweredBy") ?? "";
  const answeredBy = (ANSWERED_BY as readonly string[]).includes(raw) ? (raw as AnsweredBy) : "unknown";
  const ms = Number.parseInt(params.get("MachineDetectionDuration") ?? "", 10);
  return { callSid, answeredBy, durationMs: Number.isFinite(ms) && ms >= 0 ? ms : null };
}

/** What answered, as the call acts on it: a person (or the carrier could not tell), a machine, or a fax. */
export type Answerer = "person" | "machine" | "fax";

export const answererOf = (answeredBy: AnsweredBy): Answerer =>
  answeredBy === "fax" ? "fax" : answeredBy.startsWith("machine_") ? "machine" : "person";
