// How the Campaigns screens word a campaign and its recipients: one place, used by the pages (JSX)
// and by the JSON a campaign's page follows while it runs (GET …/live), so what the server draws and
// what the script fills read the same.
import type { CampaignView, RecipientView } from "../../campaigns/schema";
import { type CampaignStatus, RECIPIENT_STATES, type RecipientState } from "../../db/schema";
import type { Tone } from "../ui";
import { when } from "../ui/time";

export const STATE_LABELS: Record<RecipientState, string> = {
  pending: "Pending",
  calling: "Calling",
  completed: "Completed",
  voicemail: "Voicemail",
  "no-answer": "No answer",
  busy: "Busy",
  failed: "Failed",
  canceled: "Canceled",
};

/** States a recipient does not leave (docs/campaigns.md, "States"): what the progress bar counts as done. */
const FINAL: readonly RecipientState[] = ["completed", "voicemail", "no-answer", "busy", "failed", "canceled"];

export const statusTone = (status: CampaignStatus): Tone =>
  status === "completed" ? "good" : status === "canceled" ? "bad" : status === "running" ? "" : "off";

export const stateTone = (state: RecipientState): Tone =>
  state === "completed" ? "good" : state === "failed" ? "bad" : state === "pending" || state === "canceled" ? "off" : "";

/** Recipients in a final state of all of them: "12 of 40 done". */
export function progressOf(c: Pick<CampaignView, "counts" | "recipientCount">) {
  const done = FINAL.reduce((sum, s) => sum + c.counts[s], 0);
  const total = c.recipientCount;
  return { done, total, percent: total === 0 ? 0 : Math.floor((done / total) * 100), text: `${done} of ${total} done` };
}

/** Which of the page's buttons a status allows (the service refuses the others with a 409). */
export const ACTIONS = {
  start: ["draft"],
  pause: ["running"],
  resume: ["paused"],
  cancel: ["draft", "running", "paused"],
  delete: ["draft", "completed", "canceled"],
} as const satisfies Record<string, readonly CampaignStatus[]>;
export type CampaignAction = keyof typeof ACTIONS;

export const allows = (action: CampaignAction, status: CampaignStatus) => (ACTIONS[action] as readonly string[]).includes(status);

const DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];

/** "Mon–Fri 09:00–18:00 (America/New_York, or the recipient's own)", or "Any time". */
export function scheduleText(schedule: CampaignView["schedule"]): string {
  if (!schedule) return "Any time";
  const days = [...schedule.days].sort((a, b) => a - b);
  const run = days.length > 2 && days.every((d, i) => i === 0 || d === (days[i - 1] as number) + 1);
  const named = run
    ? `${DAYS[(days[0] as number) - 1]}–${DAYS[(days[days.length - 1] as number) - 1]}`
    : days.map((d) => DAYS[d - 1]).join(", ");
  return `${named} ${schedule.start}–${schedule.end} in each recipient's time zone (${schedule.timezone} when the row names none)`;
}

/** "Up to 3 attempts, 60 min apart, on no-answer, busy", or "One attempt (no retry)". */
export function retryText(retry: CampaignView["retry"]): string {
  if (retry.maxAttempts <= 1) return "One attempt (no retry)";
  const delay = retry.delaySeconds % 3600 === 0 ? `${retry.delaySeconds / 3600} h` : `${Math.round(retry.delaySeconds / 60)} min`;
  return `Up to ${retry.maxAttempts} attempts, ${delay} apart, on ${retry.on.length ? retry.on.join(", ") : "no outcome"}`;
}

/** The campaign's figures as the page and its script show them. */
export const liveOf = (c: CampaignView) => ({
  status: c.status,
  statusTone: statusTone(c.status),
  pausedReason: c.pausedReason,
  counts: Object.fromEntries(RECIPIENT_STATES.map((s) => [s, c.counts[s]])) as Record<RecipientState, number>,
  progress: progressOf(c),
  callsInFlight: c.callsInFlight,
});

/** A recipient's row, as text: what the table shows and the page's script fills in. */
export interface RecipientRow {
  id: string;
  row: number;
  phoneNumber: string;
  variables: string;
  state: RecipientState;
  stateLabel: string;
  stateTone: Tone;
  attempts: number;
  lastCallId: string | null;
  lastEndedReason: string;
  next: string | null;
}

export const recipientRow = (r: RecipientView): RecipientRow => ({
  id: r.id,
  row: r.row,
  phoneNumber: r.phoneNumber,
  variables: Object.entries(r.variables)
    .map(([k, v]) => `${k}: ${v}`)
    .join(" · "),
  state: r.state,
  stateLabel: STATE_LABELS[r.state],
  stateTone: stateTone(r.state),
  attempts: r.attempts,
  lastCallId: r.lastCallId,
  lastEndedReason: r.lastEndedReason ?? "—",
  next: r.state === "pending" && r.nextAttemptAt ? `not before ${when(r.nextAttemptAt)}` : null,
});
