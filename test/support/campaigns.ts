// Helpers for the campaign tests: an agent and a draft campaign of a workspace, made through the API.
import type { CampaignView, RecipientView } from "../../src/campaigns/schema";
import type { Page } from "../../src/lib/pagination";
import { json, type Workspace } from "./harness";

export type { CampaignView, RecipientView };

/** The local stack's shared caller id (TWILIO_FROM_NUMBERS): every workspace may call from it. */
export const SHARED_NUMBER = "+15005550006";
const PERSONA = "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77";

/** An agent whose prompt uses `{{first_name}}` (and its first message `{{appointment}}`) unless told otherwise. */
export async function campaignAgent(ws: Workspace, body: Record<string, unknown> = {}): Promise<string> {
  const res = await ws.api("/v1/agents", {
    method: "POST",
    json: {
      name: "Reminder agent",
      personaId: PERSONA,
      systemPrompt: "You remind {{first_name}} of an appointment.",
      firstMessage: "Hello {{first_name}}, about {{appointment}}.",
      ...body,
    },
  });
  if (res.status !== 201) throw new Error(`create agent: ${res.status} ${await res.text()}`);
  return (await json<{ id: string }>(res)).id;
}

/** `n` recipients with distinct numbers and the variables campaignAgent's templates use. */
export const recipients = (n: number, base = 4155550000) =>
  Array.from({ length: n }, (_, i) => ({
    phoneNumber: `+1${base + i}`,
    variables: { first_name: `Person ${i + 1}`, appointment: "Tuesday 10:00" },
  }));

/**
 * A schedule whose window is closed now (one minute, twelve hours away, UTC): a campaign started
 * with it is running, and its runner (woken by start and resume) dials no one, so its recipients
 * stay pending for tests of the moves and the counts.
 */
export function closedNow(): { days: number[]; start: string; end: string; timezone: string } {
  const hh = String((new Date().getUTCHours() + 12) % 24).padStart(2, "0");
  return { days: [1, 2, 3, 4, 5, 6, 7], start: `${hh}:00`, end: `${hh}:01`, timezone: "UTC" };
}

/** POST /v1/campaigns with JSON (the caller checks the status). */
export const postCampaign = (ws: Workspace, body: Record<string, unknown>) => ws.api("/v1/campaigns", { method: "POST", json: body });

/** A draft campaign of `ws` (its own agent unless `agentId`), answered 201. */
export async function createCampaign(ws: Workspace, body: Record<string, unknown> = {}): Promise<CampaignView> {
  const agentId = (body.agentId as string | undefined) ?? (await campaignAgent(ws));
  const res = await postCampaign(ws, { name: "Reminders", agentId, fromNumbers: [SHARED_NUMBER], recipients: recipients(3), ...body });
  if (res.status !== 201) throw new Error(`create campaign: ${res.status} ${await res.text()}`);
  return json<CampaignView>(res);
}

/** Every recipient of a campaign, page by page (`query`: extra parameters such as `state=pending`). */
export async function allRecipients(ws: Workspace, id: string, query = "", limit = 100): Promise<RecipientView[]> {
  const out: RecipientView[] = [];
  let cursor: string | null = null;
  do {
    const q = new URLSearchParams(query);
    q.set("limit", String(limit));
    if (cursor) q.set("cursor", cursor);
    const res = await ws.api(`/v1/campaigns/${id}/recipients?${q}`);
    if (res.status !== 200) throw new Error(`list recipients: ${res.status} ${await res.text()}`);
    const page: Page<RecipientView> = await json(res);
    out.push(...page.data);
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}
