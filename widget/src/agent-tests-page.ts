// An agent's Tests page (src/dashboard/agent-tests/list.tsx), followed while runs are queued or
// running: every 2 s, GET /dashboard/agents/:id/tests/live gives each cell of the results (the
// newest run of each test at each version, as src/dashboard/agent-tests/format.ts words it) and
// the newest replays' statuses; the cells, each test's last result and the replays shown are
// redrawn in place until every run is final. A cell the page does not have (a run of a version
// started elsewhere) reloads the page, which draws its column; a replay it does not show is left.
// Not part of widget.js: the dashboard's asset build bundles it. A reload shows the same.

type Tone = "good" | "bad" | "off" | "";
interface Cell {
  testId: string;
  version: string;
  runId: string;
  status: string;
  tone: Tone;
}
interface Live {
  active: boolean;
  cells: Cell[];
  replays: Array<Pick<Cell, "runId" | "status" | "tone">>;
}

const POLL_MS = 2_000;

export {}; // a module: its names are its own, not the page's globals

function draw(slot: HTMLElement, agent: string, cell: Pick<Cell, "runId" | "status" | "tone">): void {
  if (slot.dataset.status === cell.status && slot.querySelector(`a[href$="${cell.runId}"]`)) return;
  const link = document.createElement("a");
  link.href = `/dashboard/agents/${agent}/test-runs/${cell.runId}`;
  const badge = document.createElement("span");
  badge.className = cell.tone ? `badge ${cell.tone}` : "badge";
  badge.textContent = cell.status;
  link.append(badge);
  // Keep the words screen readers heard (test and version).
  const sr = slot.querySelector(".sr");
  if (sr) link.append(sr);
  slot.replaceChildren(link);
  slot.dataset.status = cell.status;
}

function setUp(page: HTMLElement): void {
  const agent = page.dataset.agent ?? "";

  async function tick(): Promise<void> {
    let state: Live;
    try {
      const res = await fetch(`/dashboard/agents/${agent}/tests/live`, {
        headers: { accept: "application/json" },
        credentials: "same-origin",
      });
      if (!res.ok) throw new Error(String(res.status));
      state = (await res.json()) as Live;
    } catch {
      window.setTimeout(tick, POLL_MS * 2); // a blip: try again, a little later
      return;
    }
    const newest = new Map<string, Cell>();
    for (const cell of state.cells) {
      const slot = page.querySelector<HTMLElement>(`[data-cell="${cell.testId}:${cell.version}"]`);
      if (!slot) {
        window.location.reload();
        return;
      }
      draw(slot, agent, cell);
      const before = newest.get(cell.testId);
      if (!before || before.runId < cell.runId) newest.set(cell.testId, cell);
    }
    for (const [testId, cell] of newest) {
      const slot = page.querySelector<HTMLElement>(`[data-cell="last:${testId}"]`);
      if (slot) draw(slot, agent, cell);
    }
    for (const replay of state.replays ?? []) {
      const slot = page.querySelector<HTMLElement>(`[data-cell="replay:${replay.runId}"]`);
      if (slot) draw(slot, agent, replay);
    }
    page.dataset.active = state.active ? "1" : "";
    if (state.active) window.setTimeout(tick, POLL_MS);
  }

  if (page.dataset.active) window.setTimeout(tick, POLL_MS);
}

// Last: what setUp calls (the constants above) is defined by then.
const root = document.querySelector<HTMLElement>("[data-agent-tests-page]");
if (root) setUp(root);
