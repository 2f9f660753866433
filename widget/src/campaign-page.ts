// A campaign's dashboard page (src/dashboard/campaigns/detail.tsx), followed while it runs: every
// 2 s, GET /dashboard/campaigns/:id/live (the same state filter and cursor as the page) gives the
// status, the counts per state, the progress and the rows the page shows, worded by the server
// (src/dashboard/campaigns/format.ts); the page is updated in place, the buttons the new status
// allows shown, until the campaign stops running and no call is in flight. Not part of widget.js:
// the dashboard's asset build bundles it. The page works without it (a reload shows the same).

type Tone = "good" | "bad" | "off" | "";
interface Row {
  id: string;
  row: number;
  state: string;
  stateLabel: string;
  stateTone: Tone;
  attempts: number;
  lastCallId: string | null;
  lastEndedReason: string;
  next: string | null;
}
interface Live {
  status: string;
  statusTone: Tone;
  pausedReason: string | null;
  counts: Record<string, number>;
  progress: { done: number; total: number; percent: number; text: string };
  callsInFlight: number;
  recipients: Row[];
}

const POLL_MS = 2_000;

export {}; // a module: its names are its own, not the page's globals

function el(tag: string, className: string, text?: string): HTMLElement {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

const badge = (tone: Tone, text: string) => el("span", tone ? `badge ${tone}` : "badge", text);

/** Following: while it runs, or while a call it placed is still in flight (a paused campaign's calls finish). */
const followed = (live: Pick<Live, "status" | "callsInFlight">) => live.status === "running" || live.callsInFlight > 0;

function setUp(page: HTMLElement): void {
  const id = page.dataset.campaign ?? "";
  const query = new URLSearchParams();
  if (page.dataset.state) query.set("state", page.dataset.state);
  if (page.dataset.cursor) query.set("cursor", page.dataset.cursor);
  const live = (name: string) => page.querySelector<HTMLElement>(`[data-live="${name}"]`);

  function drawRow(tr: HTMLElement, row: Row): void {
    const cell = (name: string) => tr.querySelector<HTMLElement>(`[data-cell="${name}"]`);
    const state = cell("state");
    if (state) {
      const parts: Node[] = [badge(row.stateTone, row.stateLabel)];
      if (row.next) parts.push(el("span", "small muted block", row.next));
      state.replaceChildren(...parts);
    }
    const attempts = cell("attempts");
    if (attempts) attempts.textContent = String(row.attempts);
    const call = cell("lastCall");
    if (call) {
      if (row.lastCallId) {
        const link = el("a", "mono", row.lastCallId.slice(0, 8)) as HTMLAnchorElement;
        link.href = `/dashboard/calls/${row.lastCallId}`;
        link.append(el("span", "sr", ` (call of row ${row.row})`));
        call.replaceChildren(link);
      } else call.textContent = "—";
    }
    const reason = cell("lastEndedReason");
    if (reason) reason.textContent = row.lastEndedReason;
  }

  function draw(state: Live): void {
    page.dataset.status = state.status;
    live("status")?.replaceChildren(badge(state.statusTone, state.status));
    const reason = live("pausedReason");
    if (reason) {
      reason.textContent = state.pausedReason ?? "";
      reason.hidden = !state.pausedReason;
    }
    const bar = live("bar") as HTMLProgressElement | null;
    if (bar) {
      bar.max = Math.max(1, state.progress.total);
      bar.value = state.progress.done;
      bar.textContent = `${state.progress.percent}%`;
    }
    const progress = live("progress");
    if (progress) progress.textContent = state.progress.text;
    const inFlight = live("callsInFlight");
    if (inFlight) inFlight.textContent = String(state.callsInFlight);
    for (const [name, n] of Object.entries(state.counts)) {
      const count = page.querySelector(`[data-count="${name}"]`);
      if (count) count.textContent = String(n);
    }
    for (const form of page.querySelectorAll<HTMLFormElement>("form[data-allowed]"))
      form.hidden = !(form.dataset.allowed ?? "").split(" ").includes(state.status);
    for (const row of state.recipients) {
      const tr = page.querySelector<HTMLElement>(`tr[data-recipient="${row.id}"]`);
      if (tr) drawRow(tr, row);
    }
  }

  async function tick(): Promise<void> {
    let state: Live;
    try {
      const search = query.toString();
      const res = await fetch(`/dashboard/campaigns/${id}/live${search ? `?${search}` : ""}`, {
        headers: { accept: "application/json" },
        credentials: "same-origin",
      });
      if (!res.ok) throw new Error(String(res.status));
      state = (await res.json()) as Live;
    } catch {
      window.setTimeout(tick, POLL_MS * 2); // a blip: try again, a little later
      return;
    }
    draw(state);
    if (followed(state)) window.setTimeout(tick, POLL_MS);
  }

  const inFlight = Number(live("callsInFlight")?.textContent ?? "0");
  if (followed({ status: page.dataset.status ?? "", callsInFlight: inFlight })) window.setTimeout(tick, POLL_MS);
}

// Last: what setUp calls (the constants above) is defined by then.
const root = document.querySelector<HTMLElement>("[data-campaign-page]");
if (root) setUp(root);
