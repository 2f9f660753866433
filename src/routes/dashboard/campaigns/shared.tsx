/** @jsxImportSource hono/jsx */
// What the Campaigns pages share: the list, the new campaign form (drawn again with a refusal) and a
// campaign's page (drawn for a GET, and again with a move its status refused), each from the
// campaigns service the API calls.
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { listAgentNames } from "../../../agents/service";
import { listPhoneNumbers } from "../../../calls/phone-numbers";
import { getCampaign, listCampaigns, listRecipients } from "../../../campaigns/service";
import { toCampaignView, toRecipientView } from "../../../campaigns/views";
import type { AppEnv } from "../../../context";
import { CampaignPage } from "../../../dashboard/campaigns/detail";
import { EMPTY_CAMPAIGN, type NewCampaignValues, type RowIssue } from "../../../dashboard/campaigns/form";
import { recipientRow } from "../../../dashboard/campaigns/format";
import { CampaignList } from "../../../dashboard/campaigns/list";
import { NewCampaignPage } from "../../../dashboard/campaigns/new";
import { type FieldErrors, shellOf } from "../../../dashboard/ui";
import { RECIPIENT_STATES, type RecipientState } from "../../../db/schema";
import { getConcurrency } from "../../../organizations/service";

export const BASE = "/dashboard/campaigns";
/** Campaigns a list page shows, and recipients a campaign's page shows. */
export const CAMPAIGNS_SHOWN = 50;
export const RECIPIENTS_SHOWN = 50;

export async function renderList(c: Context<AppEnv>, notice?: string) {
  const ctx = c.var.ctx;
  const [shell, page, agents] = await Promise.all([
    shellOf(c, "Campaigns", "campaigns"),
    listCampaigns({ ctx, input: { limit: CAMPAIGNS_SHOWN, cursor: c.req.query("cursor") } }),
    listAgentNames({ ctx }),
  ]);
  const next = page.nextCursor ? `${BASE}?${new URLSearchParams({ cursor: page.nextCursor })}` : null;
  return c.html(
    <CampaignList
      shell={shell}
      campaigns={page.data.map((x) => toCampaignView(x.campaign, x.counts))}
      agents={new Map(agents.map((a) => [a.id, a.name]))}
      next={next}
      notice={notice}
    />,
  );
}

/** The new campaign form: empty, or what was sent with its refusal. */
export async function renderNew(
  c: Context<AppEnv>,
  form: { values: NewCampaignValues; errors: FieldErrors; refused?: { rows: RowIssue[]; message: string } } = {
    values: EMPTY_CAMPAIGN,
    errors: {},
  },
  status: ContentfulStatusCode = 200,
) {
  const { ctx, config } = c.var;
  const [shell, agents, numbers, concurrency] = await Promise.all([
    shellOf(c, "New campaign", "campaigns"),
    listAgentNames({ ctx }),
    listPhoneNumbers({ ctx, input: { limit: 100 } }),
    getConcurrency({ ctx }),
  ]);
  const own = numbers.data.map((n) => n.number);
  const callerIds = [
    ...numbers.data.map((n) => ({ number: n.number, label: n.label ? `${n.number} (${n.label})` : n.number })),
    ...config.TWILIO_FROM_NUMBERS.filter((n) => !own.includes(n)).map((n) => ({ number: n, label: `${n} (shared)` })),
  ];
  return c.html(<NewCampaignPage shell={shell} agents={agents} callerIds={callerIds} concurrency={concurrency} {...form} />, status);
}

/** The recipients' state filter of a page's query ("" for all; an unknown state is all). */
export const stateOf = (c: Context<AppEnv>): RecipientState | "" => {
  const state = c.req.query("state") ?? "";
  return (RECIPIENT_STATES as readonly string[]).includes(state) ? (state as RecipientState) : "";
};

/** The page of recipients a campaign's page shows (its `?state=` and `?cursor=`), as rows. */
export async function recipientsShown(c: Context<AppEnv>, id: string) {
  const state = stateOf(c);
  const page = await listRecipients({
    ctx: c.var.ctx,
    input: { id, limit: RECIPIENTS_SHOWN, cursor: c.req.query("cursor"), ...(state ? { state } : {}) },
  });
  return { state, page, rows: page.data.map((r) => recipientRow(toRecipientView(r))) };
}

/** A campaign's page (404 for another workspace's or a missing one), with a notice when an action says one. */
export async function renderCampaign(
  c: Context<AppEnv>,
  id: string,
  notice?: { kind: "ok" | "error"; text: string },
  status: ContentfulStatusCode = 200,
) {
  const ctx = c.var.ctx;
  const { campaign, counts } = await getCampaign({ ctx, input: { id } });
  const [shell, shown, agents] = await Promise.all([
    shellOf(c, `Campaign: ${campaign.name}`, "campaigns"),
    recipientsShown(c, campaign.id),
    listAgentNames({ ctx }),
  ]);
  const cursor = c.req.query("cursor") ?? null;
  const kept: Array<[string, string]> = shown.state ? [["state", shown.state]] : [];
  const at = (extra: Array<[string, string]>) => {
    const q = new URLSearchParams([...kept, ...extra]).toString();
    return `${BASE}/${campaign.id}${q ? `?${q}` : ""}`;
  };
  return c.html(
    <CampaignPage
      shell={shell}
      campaign={toCampaignView(campaign, counts)}
      agentName={agents.find((a) => a.id === campaign.agentId)?.name ?? null}
      rows={shown.rows}
      state={shown.state}
      cursor={cursor}
      next={shown.page.nextCursor ? at([["cursor", shown.page.nextCursor]]) : null}
      first={cursor ? at([]) : null}
      notice={notice}
    />,
    status,
  );
}
