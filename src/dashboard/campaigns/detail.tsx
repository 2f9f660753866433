/** @jsxImportSource hono/jsx */
// A campaign's page: its status (and why the platform paused it), progress and counts per state,
// the buttons its status allows (start, pause, resume, cancel after a confirmation, delete), its
// settings, and its recipients. While it runs, the script (widget/src/campaign-page.ts,
// CAMPAIGN_PAGE_JS) follows it without a reload; every button is a form that works without it.
import type { FC } from "hono/jsx";
import type { CampaignView } from "../../campaigns/schema";
import { RECIPIENT_STATES, type RecipientState } from "../../db/schema";
import { Csrf, Flash, InlineScript, Layout, type Shell, When } from "../ui";
import { CAMPAIGN_PAGE_JS, CAMPAIGNS_CSS } from "../ui/assets/built";
import { ACTIONS, allows, type CampaignAction, type RecipientRow, retryText, STATE_LABELS, scheduleText } from "./format";
import { CampaignProgress, CampaignStatus } from "./progress";
import { RecipientsTable } from "./recipients";

export interface CampaignPageProps {
  shell: Shell;
  campaign: CampaignView;
  agentName: string | null;
  rows: RecipientRow[];
  /** The recipients shown: their state filter and cursor (the script follows the same), the next and first pages' addresses. */
  state: RecipientState | "";
  cursor: string | null;
  next: string | null;
  first: string | null;
  notice?: { kind: "ok" | "error"; text: string };
}

const BUTTONS: Record<CampaignAction, { label: string; class?: string; confirm?: (c: CampaignView) => string }> = {
  start: { label: "Start" },
  pause: { label: "Pause", class: "secondary" },
  resume: { label: "Resume" },
  cancel: {
    label: "Cancel campaign",
    class: "danger",
    confirm: (c) =>
      `Cancel "${c.name}"? Its pending recipients are not called; calls in flight finish. A canceled campaign cannot be started again.`,
  },
  delete: {
    label: "Delete",
    class: "danger",
    confirm: (c) => `Delete "${c.name}" and its ${c.recipientCount} recipients? Their calls stay in Calls.`,
  },
};

/** Every button, hidden when the status does not allow it: the script shows the right ones when the status changes. */
const Actions: FC<{ campaign: CampaignView; csrf: string }> = ({ campaign, csrf }) => (
  <div class="row campaign-actions">
    {(Object.keys(ACTIONS) as CampaignAction[]).map((action) => {
      const b = BUTTONS[action];
      return (
        <form
          method="post"
          action={`/dashboard/campaigns/${campaign.id}/${action}`}
          data-allowed={ACTIONS[action].join(" ")}
          hidden={!allows(action, campaign.status)}
          data-confirm={b.confirm?.(campaign)}
        >
          <Csrf token={csrf} />
          <button type="submit" class={b.class}>
            {b.label}
          </button>
        </form>
      );
    })}
  </div>
);

const Counts: FC<{ campaign: CampaignView }> = ({ campaign }) => (
  <dl class="counts">
    {RECIPIENT_STATES.map((s) => (
      <div>
        <dt>{STATE_LABELS[s]}</dt>
        <dd data-count={s}>{campaign.counts[s]}</dd>
      </div>
    ))}
  </dl>
);

const Settings: FC<{ campaign: CampaignView; agentName: string | null }> = ({ campaign: c, agentName }) => (
  <section class="card" aria-labelledby="settings-heading">
    <h2 id="settings-heading" class="mt0">
      Settings
    </h2>
    <dl class="settings">
      <dt>Agent</dt>
      <dd>{c.agentId ? <a href={`/dashboard/agents/${c.agentId}`}>{agentName ?? c.agentId}</a> : "Deleted"}</dd>
      <dt>Agent version</dt>
      <dd>{c.agentVersion === null ? "Live version at each call" : `Version ${c.agentVersion}`}</dd>
      <dt>Caller ids</dt>
      <dd class="mono">{c.fromNumbers.join(", ")}</dd>
      <dt>Schedule</dt>
      <dd>{scheduleText(c.schedule)}</dd>
      <dt>Retries</dt>
      <dd>{retryText(c.retry)}</dd>
      <dt>Most calls at once</dt>
      <dd>
        {c.maxCallsInFlight} (<span data-live="callsInFlight">{c.callsInFlight}</span> in flight now)
      </dd>
      <dt>Created</dt>
      <dd>
        <When at={c.createdAt} />
      </dd>
      <dt>Started</dt>
      <dd>
        <When at={c.startedAt} />
      </dd>
      <dt>Completed</dt>
      <dd>
        <When at={c.completedAt} />
      </dd>
    </dl>
  </section>
);

export const CampaignPage: FC<CampaignPageProps> = ({ shell, campaign, agentName, rows, state, cursor, next, first, notice }) => (
  <Layout
    shell={shell}
    css={CAMPAIGNS_CSS}
    actions={
      <a class="button secondary" href="/dashboard/campaigns">
        All campaigns
      </a>
    }
  >
    {notice ? <Flash kind={notice.kind}>{notice.text}</Flash> : null}
    <div data-campaign-page data-campaign={campaign.id} data-status={campaign.status} data-state={state} data-cursor={cursor ?? ""}>
      <section class="card" aria-labelledby="progress-heading">
        <h2 id="progress-heading" class="mt0">
          Progress
        </h2>
        <p class="row mt0">
          <CampaignStatus campaign={campaign} />
        </p>
        <CampaignProgress campaign={campaign} />
        <Counts campaign={campaign} />
        <Actions campaign={campaign} csrf={shell.csrf} />
      </section>
      <RecipientsTable campaign={campaign.id} rows={rows} state={state} next={next} first={first} />
      <Settings campaign={campaign} agentName={agentName} />
    </div>
    <InlineScript nonce={shell.nonce} js={CAMPAIGN_PAGE_JS} />
  </Layout>
);
