/** @jsxImportSource hono/jsx */
// The Campaigns screen: the workspace's campaigns (agent, status, progress, created), newest first.
// With none yet, it says what a campaign is for.
import type { FC } from "hono/jsx";
import type { CampaignView } from "../../campaigns/schema";
import { DataTable, EmptyState, Flash, Layout, type Shell, When } from "../ui";
import { CAMPAIGNS_CSS } from "../ui/assets/built";
import { CampaignProgress, CampaignStatus } from "./progress";

export interface CampaignListProps {
  shell: Shell;
  campaigns: CampaignView[];
  /** Agent names by id (a deleted agent's campaign names none). */
  agents: Map<string, string>;
  /** The next page's address ("Older campaigns"), or null. */
  next: string | null;
  notice?: string;
}

export const WHAT_FOR =
  "A campaign calls a list of people with one agent: appointment reminders, lead follow-up, surveys. Upload the numbers as a CSV " +
  "file (a column per {{variable}} the agent's prompt uses), choose when and how often to call, then start it: calls are paced " +
  "under your limit of calls in flight and followed here.";

export const CampaignList: FC<CampaignListProps> = ({ shell, campaigns, agents, next, notice }) => (
  <Layout
    shell={shell}
    css={CAMPAIGNS_CSS}
    actions={
      <a class="button" href="/dashboard/campaigns/new">
        New campaign
      </a>
    }
  >
    {notice ? <Flash>{notice}</Flash> : null}
    {campaigns.length > 0 ? <p class="muted small mt0">{WHAT_FOR}</p> : null}
    <DataTable
      rows={campaigns}
      stack
      empty={
        <EmptyState action={{ href: "/dashboard/campaigns/new", label: "Create the first one" }}>No campaigns yet. {WHAT_FOR}</EmptyState>
      }
      columns={[
        { header: "Name", label: "Name", cell: (c) => <a href={`/dashboard/campaigns/${c.id}`}>{c.name}</a> },
        {
          header: "Agent",
          label: "Agent",
          cell: (c) => (c.agentId ? <a href={`/dashboard/agents/${c.agentId}`}>{agents.get(c.agentId) ?? "Agent"}</a> : "(deleted)"),
        },
        { header: "Status", label: "Status", cell: (c) => <CampaignStatus campaign={c} /> },
        { header: "Progress", label: "Progress", cell: (c) => <CampaignProgress campaign={c} /> },
        { header: "Created", label: "Created", cell: (c) => <When at={c.createdAt} /> },
      ]}
    />
    {next ? (
      <p>
        <a href={next}>Older campaigns</a>
      </p>
    ) : null}
  </Layout>
);
