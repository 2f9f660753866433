// A call's dashboard page (src/dashboard/calls/detail.tsx): a transcript time plays the recording
// from there, and the line being heard is marked while it plays; a call in progress is followed:
// its status and transcript are polled (GET /dashboard/calls/:id/live) until it ends, then the
// page reloads with the whole record. Not part of widget.js: the dashboard's asset build bundles it
// (typechecked here with the browser's DOM types). Everything works without it but the live view.

interface LiveTurn {
  role: "agent" | "user" | "tool";
  text: string;
  startMs: number;
}
interface Live {
  status: string;
  live: boolean;
  turns: LiveTurn[];
}

const POLL_MS = 2_000;
const audio = document.querySelector<HTMLAudioElement>("audio");
const turns = document.querySelector<HTMLOListElement>("[data-turns]");

document.addEventListener("click", (event) => {
  const button = (event.target as Element | null)?.closest<HTMLElement>("[data-seek]");
  if (!button || !audio) return;
  audio.currentTime = Number(button.dataset.seek ?? 0);
  void audio.play().catch(() => undefined);
});

audio?.addEventListener("timeupdate", () => {
  const at = audio.currentTime;
  for (const item of document.querySelectorAll<HTMLElement>("[data-turns] > li")) {
    const now = at >= Number(item.dataset.start) && at < Number(item.dataset.end);
    if (now) item.setAttribute("aria-current", "true");
    else item.removeAttribute("aria-current");
  }
});

const followed = document.querySelector<HTMLElement>("[data-live-call]");
if (followed) follow(followed.dataset.liveCall ?? "");

function follow(callId: string): void {
  const state = document.querySelector<HTMLElement>("[data-live-state]");
  const label = (role: LiveTurn["role"]) => (role === "agent" ? "Agent" : role === "tool" ? "Tool" : "Caller");
  let shown = turns?.children.length ?? 0;
  const tick = async () => {
    let live: Live;
    try {
      const res = await fetch(`/dashboard/calls/${callId}/live`, { headers: { accept: "application/json" }, credentials: "same-origin" });
      if (!res.ok) throw new Error(String(res.status));
      live = (await res.json()) as Live;
    } catch {
      window.setTimeout(tick, POLL_MS * 2); // a blip: try again, a little later
      return;
    }
    if (state) state.textContent = live.status;
    if (!live.live) {
      window.location.reload();
      return;
    }
    let list = turns;
    if (!list && live.turns.length > 0) {
      // The page said "Nothing was said." when it was drawn: the list starts now.
      list = document.createElement("ol");
      list.className = "turns";
      document.querySelector("[data-turns-empty]")?.replaceWith(list);
    }
    for (const t of live.turns.slice(shown)) {
      const item = document.createElement("li");
      const who = document.createElement("span");
      who.className = "role";
      who.textContent = label(t.role);
      const at = document.createElement("span");
      at.className = "muted small";
      const s = Math.floor(t.startMs / 1000);
      at.textContent = `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
      item.append(who, at, ` ${t.text}`);
      list?.append(item);
    }
    shown = Math.max(shown, live.turns.length);
    window.setTimeout(tick, POLL_MS);
  };
  window.setTimeout(tick, POLL_MS);
}
