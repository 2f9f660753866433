// Answering-machine detection on an outbound phone call (docs/campaigns.md, "Voicemail"). The
// carrier decides who answered (Twilio's async AMD) while the call already streams; its verdict
// comes to the AMD callback (src/routes/telephony/twilio-amd.ts), which stores it and hands it to
// the call's session through its Durable Object (./machine-verdict.ts). While the verdict is pending the agent holds its
// first message and the callee's audio is kept from the conversation (a greeting is speech too: it
// must not start a reply), up to DETECTION_HOLD_MS; then a person (or a verdict of `unknown`) gets
// the conversation, a machine or a fax the agent's plan: hang up, or say the message after the
// beep and then hang up. Either way the call ends with reason `voicemail`.
import type { Agent, AnsweredBy, Call, VoicemailPlan } from "../db/schema";
import { answererOf } from "../telephony/amd";
import { renderTemplate } from "./prompt";

/**
 * The longest the agent stays silent waiting for a verdict. Twilio decides a person within about
 * 2 to 4 s (their "hello", then 1.2 s of quiet) and a silent line as `unknown` after 5 s; this is the
 * backstop for a verdict that is late, so a person never waits longer than this in silence.
 */
export const DETECTION_HOLD_MS = 8_000;

/** What the session does on a verdict (or when the hold runs out). */
export type DetectionAction =
  | { kind: "converse" } // a person: the first message, then the conversation
  | { kind: "hang-up" } // a machine (plan `hang-up`) or a fax: end `voicemail`
  | { kind: "leave-message"; text: string } // a machine at its beep (plan `leave-message`): say it, then end `voicemail`
  | { kind: "none" }; // nothing changes

/** Whether the session waits for a verdict: an outbound phone call whose agent detects machines. */
export const detects = (call: Pick<Call, "type" | "direction">, agent: Pick<Agent, "voicemail">): boolean =>
  call.type === "phone" && call.direction === "outbound" && (agent.voicemail?.detection ?? "off") !== "off";

/** One call's detection, as its session follows it. */
export class MachineDetection {
  private phase: "off" | "pending" | "conversation" | "message" | "done";
  private readonly holdUntil: number;

  constructor(
    private readonly plan: VoicemailPlan,
    private readonly variables: Record<string, string>,
    active: boolean,
    now: number,
  ) {
    this.phase = active ? "pending" : "off";
    this.holdUntil = now + DETECTION_HOLD_MS;
  }

  /** The agent waits for a verdict: no first message yet, and the callee's audio starts no reply. */
  get pending(): boolean {
    return this.phase === "pending";
  }

  /** The callee's audio is kept from the conversation: while waiting, and while the message is left (a machine does not answer). */
  get muted(): boolean {
    return this.phase === "pending" || this.phase === "message";
  }

  /** The voicemail message is being said: the call ends once it has played. */
  get leavingMessage(): boolean {
    return this.phase === "message";
  }

  /** The hold ran out without a verdict: the agent speaks as to a person (a later verdict still acts). */
  expired(now: number): boolean {
    if (this.phase !== "pending" || now < this.holdUntil) return false;
    this.phase = "conversation";
    return true;
  }

  /** The carrier's verdict. Only the first that changes anything acts. */
  verdict(answeredBy: AnsweredBy): DetectionAction {
    if (this.phase === "off" || this.phase === "message" || this.phase === "done") return { kind: "none" };
    const answerer = answererOf(answeredBy);
    if (answerer === "person") {
      if (this.phase !== "pending") return { kind: "none" };
      this.phase = "conversation";
      return { kind: "converse" };
    }
    if (answerer === "fax" || this.plan.detection === "hang-up" || !this.plan.message) {
      this.phase = "done";
      return { kind: "hang-up" };
    }
    this.phase = "message";
    return { kind: "leave-message", text: renderTemplate(this.plan.message, this.variables) };
  }
}
