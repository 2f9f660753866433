// The dashboard's "Try the agent" panel on an agent's page (src/dashboard/agents/try.tsx): a web
// call through the browser's microphone (the widget's VoiceCall: level meter, mute, hang-up, the
// live transcript) and a test chat. Not part of widget.js: the dashboard's asset build bundles it
// (src/dashboard/ui/assets/build.ts), typechecked here with the browser's DOM types. Both post
// form fields with the page's CSRF token and read JSON (refusals in the API's error body).
import { CALL_STATE_LABELS, VoiceCall } from "./voice";

interface Refused {
  statusCode?: number;
  message?: string;
}

const panel = document.querySelector<HTMLElement>("[data-agent-console]");
if (panel) setUp(panel);

function setUp(root: HTMLElement): void {
  const agentId = root.dataset.agent ?? "";
  const csrf = root.dataset.csrf ?? "";
  const $ = <T extends HTMLElement>(name: string) => root.querySelector<T>(`[data-${name}]`) as T;
  /** The version chosen to try ("": the live one), sent with the call and each chat message. */
  const version = () => root.querySelector<HTMLSelectElement>("[data-try-version]")?.value ?? "";

  async function post(action: string, fields: Record<string, string>): Promise<unknown> {
    const res = await fetch(`/dashboard/agents/${agentId}/${action}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: new URLSearchParams({ _csrf: csrf, ...fields }),
      credentials: "same-origin",
    });
    const body = (await res.json().catch(() => null)) as Refused | null;
    if (!res.ok) {
      const hint = body?.message ?? `The dashboard answered ${res.status}. Reload the page and try again.`;
      throw Object.assign(new Error(hint), { status: res.status, hint });
    }
    return body;
  }

  function line(list: HTMLElement, role: "agent" | "user" | "tool" | "note", text: string): void {
    const item = document.createElement("li");
    item.className = role;
    const who = document.createElement("strong");
    who.textContent = role === "agent" ? "Agent: " : role === "user" ? "You: " : role === "tool" ? "Tool: " : "";
    item.append(who, text);
    list.append(item);
    list.scrollTop = list.scrollHeight;
  }

  // Talk
  const start = $<HTMLButtonElement>("talk-start");
  const mute = $<HTMLButtonElement>("talk-mute");
  const hangup = $<HTMLButtonElement>("talk-hangup");
  const level = $<HTMLMeterElement>("talk-level");
  const status = $<HTMLElement>("talk-status");
  const spoken = $<HTMLElement>("talk-transcript");
  const callLink = $<HTMLAnchorElement>("talk-call");
  const labels = CALL_STATE_LABELS;
  let call: VoiceCall | null = null;

  start.addEventListener("click", () => {
    if (call) return;
    spoken.replaceChildren();
    callLink.hidden = true;
    const current = new VoiceCall({
      state: (s, detail) => {
        status.textContent = detail ?? labels[s];
        const over = s === "ended" || s === "failed";
        start.hidden = !over;
        mute.hidden = over;
        hangup.hidden = over;
        if (over) {
          call = null;
          level.value = 0;
          mute.setAttribute("aria-pressed", "false");
          mute.textContent = "Mute";
          start.focus();
        }
      },
      transcript: (role, text) => line(spoken, role, text),
      speaking: (agent) => {
        if (call) status.textContent = agent ? "Agent speaking…" : labels.live;
      },
      level: (value) => {
        level.value = value;
      },
    });
    call = current;
    void current.start(async () => {
      const opened = (await post("web-call", { agentVersion: version() })) as { callId: string; url: string };
      callLink.href = `/dashboard/calls/${opened.callId}`;
      callLink.hidden = false;
      return opened;
    });
  });
  hangup.addEventListener("click", () => call?.hangup());
  mute.addEventListener("click", () => {
    const muted = mute.getAttribute("aria-pressed") !== "true";
    call?.setMuted(muted);
    mute.setAttribute("aria-pressed", String(muted));
    mute.textContent = muted ? "Unmute" : "Mute";
  });

  // Chat
  const form = $<HTMLFormElement>("chat-form");
  const input = form.querySelector("textarea") as HTMLTextAreaElement;
  const send = form.querySelector("button") as HTMLButtonElement;
  const written = $<HTMLElement>("chat-transcript");
  const restart = $<HTMLButtonElement>("chat-restart");
  let conversationId = crypto.randomUUID();
  let history: Array<{ role: "user" | "agent"; text: string }> = [];

  restart.addEventListener("click", () => {
    conversationId = crypto.randomUUID();
    history = [];
    written.replaceChildren();
    input.focus();
  });
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const message = input.value.trim();
    if (!message || send.disabled) return;
    send.disabled = true;
    written.setAttribute("aria-busy", "true");
    line(written, "user", message);
    input.value = "";
    try {
      const answer = (await post("chat", {
        conversationId,
        message,
        history: JSON.stringify(history.slice(-40)),
        agentVersion: version(),
      })) as {
        reply: string;
        tools: string[];
        ended: boolean;
      };
      for (const tool of answer.tools) line(written, "tool", tool);
      line(written, "agent", answer.reply);
      history.push({ role: "user", text: message }, { role: "agent", text: answer.reply.slice(0, 4000) });
      if (answer.ended) line(written, "note", "The agent ended the conversation. Start over to talk again.");
    } catch (err) {
      line(written, "note", (err as Error).message);
      input.value = message;
    } finally {
      send.disabled = false;
      written.setAttribute("aria-busy", "false");
      input.focus();
    }
  });
}
