// The call state machine (docs/calls.md). Statuses are Retell's and Twilio's common set; every
// change goes through `canMove`, so an out-of-order or duplicated provider callback can never
// move a call backwards or revive an ended one.
// The statuses and the ended reasons' names are stored in the calls table, so they are declared
// with its schema; what they mean is here.
import {
  CALL_STATUSES,
  type CallStatus,
  ENDED_REASON_VALUES,
  type EndedReason,
  FAULT_CATEGORIES,
  type FaultCategory,
} from "../db/schema/calls";

export { CALL_STATUSES, type CallStatus, ENDED_REASON_VALUES, type EndedReason, FAULT_CATEGORIES, type FaultCategory };

export const TERMINAL: ReadonlySet<CallStatus> = new Set(["completed", "failed", "busy", "no-answer", "canceled"]);
export const ACTIVE_STATUSES = CALL_STATUSES.filter((s) => !TERMINAL.has(s));

const NEXT: Record<CallStatus, readonly CallStatus[]> = {
  queued: ["ringing", "in-progress", "failed", "busy", "no-answer", "canceled"],
  ringing: ["in-progress", "failed", "busy", "no-answer", "canceled"],
  "in-progress": ["completed", "failed"],
  completed: [],
  failed: [],
  busy: [],
  "no-answer": [],
  canceled: [],
};

/** The states `to` may be reached from. */
export const sourcesOf = (to: CallStatus): CallStatus[] => CALL_STATUSES.filter((from) => NEXT[from].includes(to));

export const canMove = (from: CallStatus, to: CallStatus): boolean => NEXT[from].includes(to);

export const ENDED_REASONS = {
  "agent-ended-call": {
    status: "completed",
    fault: "none",
    description: "The agent hung up: it said one of its end-call phrases, or called its end_call tool.",
  },
  transferred: {
    status: "completed",
    fault: "none",
    description: "The agent's transfer_call tool handed the caller on to another number (the call's `transfer`).",
  },
  "customer-ended-call": { status: "completed", fault: "none", description: "The callee hung up (or the browser closed the web call)." },
  "silence-timeout": { status: "completed", fault: "none", description: "Nobody spoke for the agent's silenceTimeoutSeconds." },
  "max-duration-reached": { status: "completed", fault: "none", description: "The call reached the agent's maxDurationSeconds." },
  "ended-via-api": {
    status: "completed",
    fault: "none",
    description: "The call was hung up through the API (POST /v1/calls/{id}/end) or the dashboard's Hang up.",
  },
  "customer-busy": { status: "busy", fault: "customer", description: "The line was busy." },
  "customer-did-not-answer": { status: "no-answer", fault: "customer", description: "Nobody answered before the ring timeout." },
  "call-canceled": {
    status: "canceled",
    fault: "customer",
    description: "The call was canceled before it connected (through the API or the dashboard, or by the carrier).",
  },
  "web-call-not-joined": {
    status: "canceled",
    fault: "customer",
    description: "Nobody connected to the web call before its session token expired.",
  },
  "dial-failed": { status: "failed", fault: "telephony", description: "The carrier could not reach the number." },
  "media-stream-failed": {
    status: "failed",
    fault: "telephony",
    description: "The call connected but its audio stream never started or broke.",
  },
  "telephony-provider-error": { status: "failed", fault: "provider", description: "The telephony provider refused or failed the request." },
  "stt-provider-error": { status: "failed", fault: "provider", description: "Speech-to-text failed during the call." },
  "llm-provider-error": { status: "failed", fault: "provider", description: "The agent's language model failed during the call." },
  "tts-provider-error": { status: "failed", fault: "provider", description: "Text-to-speech failed during the call." },
  "insufficient-credits": { status: "failed", fault: "platform", description: "The workspace ran out of usage credits during the call." },
  voicemail: {
    status: "completed",
    fault: "customer",
    description:
      "Answering-machine detection heard a voicemail greeting or a fax: the agent hung up, or left its voicemail message and then hung up (the agent's `voicemail`).",
  },
  "watchdog-timeout": {
    status: "failed",
    fault: "platform",
    description: "The call stopped reporting progress and the watchdog ended it (docs/calls.md).",
  },
} as const satisfies Record<EndedReason, { status: CallStatus; fault: FaultCategory; description: string }>;

export const statusFor = (reason: EndedReason): CallStatus => ENDED_REASONS[reason].status;
export const faultOf = (reason: EndedReason): FaultCategory => ENDED_REASONS[reason].fault;
