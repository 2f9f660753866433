/** @jsxImportSource hono/jsx */
// A run's status as the Tests page shows it (a test's last result, the results matrix, the
// replays): a badge linking to the run's page. `data-cell` and `data-status` let the page's script
// (widget/src/agent-tests-page.ts) redraw it while the run plays.
import type { FC } from "hono/jsx";
import type { Agent } from "../../agents/service";
import { Badge } from "../ui";
import type { Cell } from "./format";

export const runHref = (agent: Pick<Agent, "id">, runId: string) => `/dashboard/agents/${agent.id}/test-runs/${runId}`;

export const RunCell: FC<{ agent: Agent; cell: Pick<Cell, "runId" | "status" | "tone"> | undefined; label: string; cellId: string }> = ({
  agent,
  cell,
  label,
  cellId,
}) => (
  <span data-cell={cellId} data-status={cell?.status ?? ""}>
    {cell ? (
      <a href={runHref(agent, cell.runId)}>
        <Badge tone={cell.tone}>{cell.status}</Badge>
        <span class="sr"> ({label})</span>
      </a>
    ) : (
      <span class="muted">—</span>
    )}
  </span>
);
