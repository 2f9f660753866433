// A test run's page or a replay's (src/dashboard/agent-tests/run.tsx), followed while the run is
// queued or running: every 2 s, GET /dashboard/agents/:id/test-runs/:runId/live says its status;
// the status badge follows it, and once the run is final the page is drawn again (its transcript,
// the replay's turns side by side and the judge's verdicts only exist then). Not part of
// widget.js: the dashboard's asset build bundles it. Without it, a reload shows the same.

interface Live {
  status: string;
  tone: "good" | "bad" | "off" | "";
  active: boolean;
}

const POLL_MS = 2_000;

export {}; // a module: its names are its own, not the page's globals

function setUp(page: HTMLElement): void {
  const url = `/dashboard/agents/${page.dataset.agent ?? ""}/test-runs/${page.dataset.testRun ?? ""}/live`;
  const slot = page.querySelector<HTMLElement>("[data-run-status]");

  async function tick(): Promise<void> {
    let state: Live;
    try {
      const res = await fetch(url, { headers: { accept: "application/json" }, credentials: "same-origin" });
      if (!res.ok) throw new Error(String(res.status));
      state = (await res.json()) as Live;
    } catch {
      window.setTimeout(tick, POLL_MS * 2); // a blip: try again, a little later
      return;
    }
    if (!state.active) {
      window.location.reload();
      return;
    }
    const badge = slot?.querySelector(".badge");
    if (slot && badge && slot.dataset.runStatus !== state.status) {
      badge.className = state.tone ? `badge ${state.tone}` : "badge";
      badge.textContent = state.status;
      slot.dataset.runStatus = state.status;
    }
    window.setTimeout(tick, POLL_MS);
  }

  if (page.dataset.active) window.setTimeout(tick, POLL_MS);
}

// Last: what setUp calls (the constants above) is defined by then.
const root = document.querySelector<HTMLElement>("[data-test-run]");
if (root) setUp(root);
