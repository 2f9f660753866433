// Campaigns: a workspace's batches of outbound calls (docs/campaigns.md). Each operation takes one
// `{ ctx, input }` (src/services.ts). This is the data and its rules: what a campaign and its
// recipients must be to be created (checked whole, written in one statement), its changes, and the
// moves between states. The dialling runner reads and writes the same rows; it is not here.
import { findAgentAt } from "../agents/versions";
import { foreignCallerIds } from "../calls/phone-numbers";
import { isForeignKeyViolation } from "../db/errors";
import type { Campaign, CampaignRetry, CampaignSchedule, CampaignStatus } from "../db/schema";
import { ApiError } from "../lib/errors";
import { isUuid } from "../lib/ids";
import type { Page } from "../lib/pagination";
import { getConcurrency } from "../organizations/service";
import type { Ctx, Op } from "../services";
import { emit, type WebhookDeps } from "../webhooks/deliver";
import {
  cancelCampaignRow,
  countsOf,
  deleteCampaignIn,
  findCampaign,
  insertCampaign,
  pageOfCampaigns,
  updateCampaignIn,
} from "./queries/campaigns";
import { pageOfRecipients } from "./queries/recipients";
import { checkRecipients, type Issue, invalidCampaign, isTimeZone, rowsFromCsv } from "./recipients";
import { wakeCampaign } from "./runner/stub";
import {
  type CreateCampaignFields,
  DEFAULT_CAMPAIGN_CALLS_IN_FLIGHT,
  type ListRecipientsQuery,
  type RecipientInput,
  type UpdateCampaignInput,
} from "./schema";
import { campaignEventData, noCounts, type RecipientCounts } from "./views";

export type { RecipientCounts };

/** A campaign with its recipients' counts by state. */
export interface CampaignWithCounts {
  campaign: Campaign;
  counts: RecipientCounts;
}

/** Recipients as JSON rows, or a CSV file's bytes (form.ts). */
export type CreateCampaignInput = CreateCampaignFields & ({ recipients: RecipientInput[] } | { csv: Uint8Array });

export const campaignNotFound = () => new ApiError("not_found", "No campaign with that id in this workspace.");

const E164 = /^\+[1-9]\d{6,14}$/;

/** The workspace's campaign, or 404 (an id that is not a UUID names none). */
async function requireCampaign(ctx: Ctx<"db" | "organizationId">, id: string): Promise<Campaign> {
  const row = isUuid(id) ? await findCampaign(ctx.db, ctx.organizationId, id) : undefined;
  if (!row) throw campaignNotFound();
  return row;
}

const withCounts = async (ctx: Ctx<"db">, rows: Campaign[]): Promise<CampaignWithCounts[]> => {
  const counts = await countsOf(
    ctx.db,
    rows.map((r) => r.id),
  );
  return rows.map((campaign) => ({ campaign, counts: counts.get(campaign.id) ?? noCounts() }));
};

/** Problems of a schedule a schema cannot see: a time zone Intl does not know, an empty window. */
function scheduleIssues(schedule: CampaignSchedule | null | undefined): Issue[] {
  if (!schedule) return [];
  const issues: Issue[] = [];
  if (!isTimeZone(schedule.timezone))
    issues.push({ path: "schedule.timezone", message: `"${schedule.timezone}" is not an IANA time zone (e.g. America/New_York)` });
  if (schedule.start >= schedule.end)
    issues.push({ path: "schedule.end", message: `must be after start (${schedule.start}); a window does not cross midnight` });
  return issues;
}

/** Caller ids: E.164, each once, each the workspace's (or the platform's shared). */
async function fromNumberIssues(ctx: Ctx<"db" | "organizationId" | "config">, numbers: string[]): Promise<Issue[]> {
  const issues: Issue[] = [];
  numbers.forEach((n, i) => {
    if (!E164.test(n)) issues.push({ path: `fromNumbers.${i}`, message: `"${n}" is not an E.164 phone number (e.g. +14155550100)` });
    else if (numbers.indexOf(n) !== i) issues.push({ path: `fromNumbers.${i}`, message: `${n} is listed twice` });
  });
  if (issues.length > 0) return issues;
  for (const n of await foreignCallerIds({ ctx, input: { numbers } }))
    issues.push({
      path: `fromNumbers.${numbers.indexOf(n)}`,
      message: `${n} is not one of this workspace's phone numbers (GET /v1/phone-numbers): add it with POST /v1/phone-numbers first`,
    });
  return issues;
}

/** The campaign's limit on calls in flight: given or the default, never above the workspace's. */
async function callsInFlightLimit(ctx: Ctx<"db" | "organizationId">, given: number | undefined, issues: Issue[]): Promise<number> {
  const { maxCallsInFlight: workspace } = await getConcurrency({ ctx });
  if (given === undefined) return Math.min(DEFAULT_CAMPAIGN_CALLS_IN_FLIGHT, workspace);
  if (given > workspace)
    issues.push({ path: "maxCallsInFlight", message: `must be at most the workspace's limit, ${workspace} (GET /v1/concurrency)` });
  return given;
}

const unknownAgent = { path: "agentId", message: "no agent with this id in this workspace" };

/**
 * Creates a draft campaign with its recipients. Everything is checked first, every problem listed
 * in one 400 (the campaign's fields and each recipient row, path `recipients.<index>.<field>`);
 * then the campaign and every recipient are written in one statement, so nothing is half-created.
 */
export async function createCampaign({
  ctx,
  input,
}: Op<CreateCampaignInput, "db" | "organizationId" | "config">): Promise<CampaignWithCounts> {
  const issues: Issue[] = [];
  // At the version its calls will run (404 for a version the agent does not have): its templates say which variables rows need.
  const agent = (await findAgentAt({ ctx, input: { id: input.agentId, version: input.agentVersion } }))?.agent ?? null;
  if (!agent) issues.push(unknownAgent);
  issues.push(...(await fromNumberIssues(ctx, input.fromNumbers)));
  const maxCallsInFlight = await callsInFlightLimit(ctx, input.maxCallsInFlight, issues);
  issues.push(...scheduleIssues(input.schedule));
  const given = "csv" in input ? rowsFromCsv(input.csv) : { rows: input.recipients, issues: [] };
  const rows = checkRecipients(given.rows, agent, [...issues, ...given.issues]);
  let id: string;
  try {
    id = await insertCampaign(
      ctx.db,
      ctx.organizationId,
      {
        name: input.name,
        agentId: input.agentId,
        agentVersion: input.agentVersion,
        fromNumbers: input.fromNumbers,
        schedule: input.schedule,
        retry: input.retry as CampaignRetry,
        maxCallsInFlight,
        metadata: input.metadata,
      },
      rows,
    );
  } catch (err) {
    // The agent was deleted between the check and the insert.
    if (isForeignKeyViolation(err)) throw invalidCampaign([unknownAgent], 0);
    throw err;
  }
  return getCampaign({ ctx, input: { id } });
}

export async function getCampaign({ ctx, input: { id } }: Op<{ id: string }>): Promise<CampaignWithCounts> {
  const [shown] = await withCounts(ctx, [await requireCampaign(ctx, id)]);
  return shown as CampaignWithCounts;
}

/** A page of the workspace's campaigns, newest first, each with its counts. */
export async function listCampaigns({
  ctx,
  input,
}: Op<{ limit: number; cursor?: string; createdAfter?: string; createdBefore?: string; status?: CampaignStatus }>): Promise<
  Page<CampaignWithCounts>
> {
  const page = await pageOfCampaigns(ctx.db, ctx.organizationId, input);
  return { ...page, data: await withCounts(ctx, page.data) };
}

/** A page of the campaign's recipients, in upload order (in one state, if given); 404 for another workspace's campaign. */
export async function listRecipients({ ctx, input: { id, ...query } }: Op<{ id: string } & ListRecipientsQuery>) {
  await requireCampaign(ctx, id);
  return pageOfRecipients(ctx.db, ctx.organizationId, id, query);
}

const STATUS_WORDS: Record<CampaignStatus, string> = {
  draft: "a draft",
  running: "running",
  paused: "paused",
  completed: "completed",
  canceled: "canceled",
};

/** 409: what the campaign's status allows instead. */
const wrongStatus = (campaign: Campaign, action: string, allowed: string) =>
  new ApiError("conflict", `The campaign is ${STATUS_WORDS[campaign.status]}: only ${allowed} campaign can be ${action}.`);

const EDITABLE: readonly CampaignStatus[] = ["draft", "paused"];
const DELETABLE: readonly CampaignStatus[] = ["draft", "completed", "canceled"];

/**
 * Changes the name, the agent's version its calls run, caller ids, schedule, retries (the fields
 * named; the others kept), limit on calls in flight or metadata, while the campaign is a draft or paused (409 otherwise: a running
 * campaign is paused first). Recipients are fixed once created.
 */
export async function updateCampaign({
  ctx,
  input: { id, patch },
}: Op<{ id: string; patch: UpdateCampaignInput }, "db" | "organizationId" | "config">): Promise<CampaignWithCounts> {
  const current = await requireCampaign(ctx, id);
  if (!EDITABLE.includes(current.status)) throw wrongStatus(current, "changed", "a draft or paused");
  const issues: Issue[] = [];
  if (patch.fromNumbers) issues.push(...(await fromNumberIssues(ctx, patch.fromNumbers)));
  if (patch.maxCallsInFlight !== undefined) await callsInFlightLimit(ctx, patch.maxCallsInFlight, issues);
  issues.push(...scheduleIssues(patch.schedule));
  // A version of the campaign's own agent (404 for one it does not have); its recipients were checked against their agent's templates when created.
  if (
    patch.agentVersion != null &&
    !(current.agentId && (await findAgentAt({ ctx, input: { id: current.agentId, version: patch.agentVersion } })))
  )
    issues.push({ path: "agentVersion", message: "the campaign's agent was deleted: it has no version to run" });
  if (issues.length > 0) throw invalidCampaign(issues, 0, "nothing was changed");
  const { retry, ...rest } = patch;
  const row = await updateCampaignIn(ctx.db, ctx.organizationId, id, EDITABLE, {
    ...rest,
    ...(retry ? { retry: { ...current.retry, ...retry } } : {}),
  });
  if (!row) throw wrongStatus(await requireCampaign(ctx, id), "changed", "a draft or paused");
  return getCampaign({ ctx, input: { id } });
}

/** Deletes a draft, completed or canceled campaign and its recipients (409 while running or paused: cancel it first). */
export async function deleteCampaign({ ctx, input: { id } }: Op<{ id: string }>): Promise<void> {
  const current = await requireCampaign(ctx, id);
  if (!DELETABLE.includes(current.status)) throw wrongStatus(current, "deleted (cancel it first)", "a draft, completed or canceled");
  if (!(await deleteCampaignIn(ctx.db, ctx.organizationId, id, DELETABLE)))
    throw wrongStatus(await requireCampaign(ctx, id), "deleted (cancel it first)", "a draft, completed or canceled");
}

/** A campaign whose agent was deleted cannot place calls: starting or resuming it is refused. */
const requireAgentOf = (campaign: Campaign, action: string) => {
  if (!campaign.agentId)
    throw new ApiError("conflict", `The campaign's agent was deleted: it cannot be ${action}. Create a new campaign with another agent.`);
};

/** One move between states: from `from` to what `set` says, or 409 naming what the current status allows. */
async function transition(
  ctx: Ctx<"db" | "organizationId">,
  id: string,
  move: { from: CampaignStatus; action: string; allowed: string; set: Partial<Campaign>; needsAgent?: boolean },
): Promise<Campaign> {
  const current = await requireCampaign(ctx, id);
  if (current.status !== move.from) throw wrongStatus(current, move.action, move.allowed);
  if (move.needsAgent) requireAgentOf(current, move.action);
  const row = await updateCampaignIn(ctx.db, ctx.organizationId, id, [move.from], move.set);
  if (!row) throw wrongStatus(await requireCampaign(ctx, id), move.action, move.allowed);
  return row;
}

/** draft → running: sets startedAt and sends campaign.started (with the counts). */
export async function startCampaign({
  ctx,
  input: { id },
}: Op<{ id: string }, "db" | "organizationId" | "campaignRunners" | "publicOrigin" | keyof WebhookDeps>) {
  const campaign = await transition(ctx, id, {
    from: "draft",
    action: "started",
    allowed: "a draft",
    set: { status: "running", startedAt: new Date(), pausedReason: null },
    needsAgent: true,
  });
  const [shown] = await withCounts(ctx, [campaign]);
  const { counts } = shown as CampaignWithCounts;
  await emit(ctx, {
    organizationId: ctx.organizationId,
    event: "campaign.started",
    data: campaignEventData(campaign, counts),
    subjectId: id,
  });
  // Its runner dials from now on, by itself (./runner); the request does not wait for any call.
  await wakeCampaign({ ctx, input: { campaignId: id } });
  return { campaign, counts };
}

/** running → paused: no new call is placed; calls in flight finish. */
export async function pauseCampaign({ ctx, input: { id } }: Op<{ id: string }>): Promise<CampaignWithCounts> {
  const campaign = await transition(ctx, id, {
    from: "running",
    action: "paused",
    allowed: "a running",
    set: { status: "paused", pausedReason: null },
  });
  return (await withCounts(ctx, [campaign]))[0] as CampaignWithCounts;
}

/** paused → running (whoever paused it; the reason is cleared). */
export async function resumeCampaign({
  ctx,
  input: { id },
}: Op<{ id: string }, "db" | "organizationId" | "campaignRunners" | "publicOrigin">): Promise<CampaignWithCounts> {
  const campaign = await transition(ctx, id, {
    from: "paused",
    action: "resumed",
    allowed: "a paused",
    set: { status: "running", pausedReason: null },
    needsAgent: true,
  });
  await wakeCampaign({ ctx, input: { campaignId: id } });
  return (await withCounts(ctx, [campaign]))[0] as CampaignWithCounts;
}

/** draft, running or paused → canceled: pending recipients are canceled; calls in flight finish. */
export async function cancelCampaign({ ctx, input: { id } }: Op<{ id: string }>): Promise<CampaignWithCounts> {
  const current = await requireCampaign(ctx, id);
  if (!(await cancelCampaignRow(ctx.db, ctx.organizationId, id)))
    throw wrongStatus(
      current.status === "canceled" || current.status === "completed" ? current : await requireCampaign(ctx, id),
      "canceled",
      "a draft, running or paused",
    );
  return getCampaign({ ctx, input: { id } });
}
