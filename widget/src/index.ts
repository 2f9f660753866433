// The embeddable widget (docs/widget.md). A page adds one tag:
//   <script src="https://…/widget.js" data-service-token="wgt_…" async></script>
// and gets a launcher button that opens a chat (and/or voice) panel with the agent. Everything
// lives in a shadow root (no style leaks either way); the only global is `window.ServiceWidget`.
// When the token is wrong or the page's origin is not allowed, nothing is rendered: one console
// warning says why.
import { Api, type ChatReply, type WidgetConfig, WidgetError } from "./api";
import { CSS } from "./styles";
import { CALL_STATE_LABELS, VoiceCall } from "./voice";

const VERSION = "1.0.0";
const PREFIX = "[ServiceWidget]";

type Child = Node | string | null | false | undefined;

/** A tiny element builder: text is always text (never HTML). */
function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  for (const child of children) if (child) el.append(child);
  return el;
}

const SVG_NS = "http://www.w3.org/2000/svg";
function icon(path: string): SVGSVGElement {
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  const p = document.createElementNS(SVG_NS, "path");
  p.setAttribute("d", path);
  p.setAttribute("fill", "currentColor");
  svg.append(p);
  return svg;
}
const ICONS = {
  chat: "M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H8l-4 4V6a2 2 0 0 1 2-2zm3 6v2h2v-2H7zm4 0v2h2v-2h-2zm4 0v2h2v-2h-2z",
  mic: "M12 15a3 3 0 0 0 3-3V6a3 3 0 0 0-6 0v6a3 3 0 0 0 3 3zm5-3a5 5 0 0 1-10 0H5a7 7 0 0 0 6 6.92V22h2v-3.08A7 7 0 0 0 19 12h-2z",
  close: "M18.3 5.71 12 12.01l-6.3-6.3-1.41 1.41 6.3 6.3-6.3 6.29 1.41 1.42 6.3-6.3 6.29 6.3 1.42-1.42-6.3-6.29 6.3-6.3z",
  send: "M2 21 23 12 2 3v7l15 2-15 2z",
};

function randomId(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return `v_${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/** localStorage / sessionStorage that never throws (blocked storage, private modes, sandboxed frames). */
function store(kind: "localStorage" | "sessionStorage") {
  return {
    get(key: string): string | null {
      try {
        return window[kind].getItem(key);
      } catch {
        return null;
      }
    },
    set(key: string, value: string | null): void {
      try {
        if (value === null) window[kind].removeItem(key);
        else window[kind].setItem(key, value);
      } catch {
        // storage unavailable: the widget still works for this page view
      }
    },
  };
}

function visitorId(): string {
  const local = store("localStorage");
  const key = "service-widget:visitor";
  const known = local.get(key);
  if (known && /^[A-Za-z0-9_-]{8,64}$/.test(known)) return known;
  const id = randomId();
  local.set(key, id);
  return id;
}

interface Saved {
  sessionId: string | null;
  messages: Array<{ role: "agent" | "user"; text: string }>;
  open: boolean;
}

class Widget {
  private readonly root: HTMLDivElement;
  private readonly launcher: HTMLButtonElement;
  private readonly panel: HTMLDivElement;
  private readonly log: HTMLDivElement;
  private input: HTMLTextAreaElement | null = null;
  private sendButton: HTMLButtonElement | null = null;
  private callButton: HTMLButtonElement | null = null;
  private callState: HTMLSpanElement | null = null;
  private readonly saved = store("sessionStorage");
  private readonly savedKey: string;
  private state: Saved;
  private busy = false;
  private call: VoiceCall | null = null;

  constructor(
    readonly host: HTMLElement,
    private readonly api: Api,
    private readonly config: WidgetConfig,
    private readonly visitor: string,
  ) {
    this.savedKey = `service-widget:${config.widgetId}`;
    this.state = this.load();
    const shadow = host.attachShadow({ mode: "open" });
    if ("adoptedStyleSheets" in shadow && typeof CSSStyleSheet !== "undefined" && "replaceSync" in CSSStyleSheet.prototype) {
      // Constructed sheets also work on pages whose CSP refuses inline <style>.
      const sheet = new CSSStyleSheet();
      sheet.replaceSync(CSS);
      shadow.adoptedStyleSheets = [sheet];
    } else {
      shadow.append(h("style", {}, CSS));
    }
    const { colors, title, mode } = config;
    const side = config.position === "bottom-left" ? "left" : "right";
    this.root = h("div", { class: `root ${side}` });
    for (const [name, value] of [
      ["--a", colors.accent],
      ["--at", colors.accentText],
      ["--b", colors.background],
      ["--t", colors.text],
    ] as const) {
      this.root.style.setProperty(name, value);
    }

    const panelId = "sw-panel";
    const titleId = "sw-title";
    const what = mode === "voice" ? "voice assistant" : "chat";
    this.launcher = h("button", {
      type: "button",
      class: "launcher",
      "aria-label": `Open ${what}: ${title}`,
      "aria-expanded": "false",
      "aria-controls": panelId,
    });
    this.launcher.append(icon(mode === "voice" ? ICONS.mic : ICONS.chat));
    this.launcher.addEventListener("click", () => (this.panel.hidden ? this.open() : this.close()));

    const closeButton = h("button", { type: "button", "aria-label": `Close ${what}` });
    closeButton.append(icon(ICONS.close));
    closeButton.addEventListener("click", () => this.close());

    this.log = h("div", { class: "log", role: "log", "aria-live": "polite", "aria-label": "Conversation" });
    this.panel = h("div", { class: "panel", id: panelId, role: "dialog", "aria-labelledby": titleId });
    this.panel.hidden = true;
    this.panel.append(h("div", { class: "head" }, h("h2", { id: titleId }, title), closeButton));

    if (mode !== "voice") {
      this.panel.append(this.log);
      if (mode === "both") this.panel.append(this.callBar());
      const inputId = "sw-input";
      const input = h("textarea", { id: inputId, rows: "1", maxlength: "2000", placeholder: "Type a message…", autocomplete: "off" });
      const send = h("button", { type: "submit", class: "send", "aria-label": "Send message" });
      send.append(icon(ICONS.send));
      const form = h("form", {}, h("label", { class: "sr", for: inputId }, "Message"), input, send);
      form.addEventListener("submit", (e) => {
        e.preventDefault();
        void this.send();
      });
      input.addEventListener("keydown", (e) => {
        if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
          e.preventDefault();
          void this.send();
        }
      });
      input.addEventListener("input", () => {
        input.style.height = "auto";
        input.style.height = `${Math.min(input.scrollHeight, 120)}px`;
      });
      this.panel.append(form);
      this.input = input;
      this.sendButton = send;
    } else {
      const bar = this.callBar();
      bar.classList.add("big");
      this.panel.append(this.log, bar);
    }
    this.panel.addEventListener("keydown", (e) => {
      if (e.key === "Escape") {
        e.stopPropagation();
        this.close();
      }
    });
    // The panel sits above the launcher in the layout, but after it in the tab order.
    this.root.append(this.panel, this.launcher);
    shadow.append(this.root);

    if (this.state.messages.length > 0) for (const m of this.state.messages) this.bubble(m.role, m.text, false);
    else if (config.greeting && mode !== "voice") this.bubble("agent", config.greeting, false);
    if (mode === "voice") this.note("Start a call and allow the microphone to talk with us.");
    if (this.state.open) this.open(false);
  }

  private get callRefs() {
    return { button: this.callButton as HTMLButtonElement, state: this.callState as HTMLSpanElement };
  }

  private callBar(): HTMLElement {
    const state = h("span", { class: "state", role: "status" }, "Talk to us by voice.");
    const button = h("button", { type: "button" }, "Start call");
    button.addEventListener("click", () => (this.call ? this.call.hangup() : void this.startCall()));
    this.callButton = button;
    this.callState = state;
    return h("div", { class: "call" }, state, button);
  }

  private load(): Saved {
    try {
      const raw = this.saved.get(this.savedKey);
      if (raw) {
        const parsed = JSON.parse(raw) as Saved;
        if (Array.isArray(parsed.messages)) return parsed;
      }
    } catch {
      // start afresh
    }
    return { sessionId: null, messages: [], open: false };
  }

  private persist(): void {
    this.saved.set(this.savedKey, JSON.stringify(this.state));
  }

  open(focus = true): void {
    this.panel.hidden = false;
    this.launcher.setAttribute("aria-expanded", "true");
    this.state.open = true;
    this.persist();
    this.log.scrollTop = this.log.scrollHeight;
    if (focus) (this.input ?? this.callButton)?.focus();
  }

  /** Closing ends the chat session (widget.completed) and any call; the next message starts anew. */
  close(): void {
    if (this.panel.hidden) return;
    this.panel.hidden = true;
    this.launcher.setAttribute("aria-expanded", "false");
    this.launcher.focus();
    this.call?.hangup();
    if (this.state.sessionId) this.api.end(this.visitor, this.state.sessionId);
    this.state = { sessionId: null, messages: [], open: false };
    this.persist();
    this.log.replaceChildren();
    if (this.config.greeting && this.config.mode !== "voice") this.bubble("agent", this.config.greeting, false);
    if (this.config.mode === "voice") this.note("Start a call and allow the microphone to talk with us.");
  }

  private bubble(role: "agent" | "user", text: string, save = true): void {
    this.log.append(
      h("div", { class: `msg ${role}` }, h("span", { class: "sr" }, role === "agent" ? `${this.config.title}: ` : "You: "), text),
    );
    this.log.scrollTop = this.log.scrollHeight;
    if (save) {
      this.state.messages.push({ role, text });
      this.persist();
    }
  }

  private note(text: string, error = false): void {
    this.log.append(h("div", { class: error ? "note error" : "note" }, text));
    this.log.scrollTop = this.log.scrollHeight;
  }

  private async send(): Promise<void> {
    const input = this.input;
    if (!input || this.busy) return;
    const text = input.value.trim();
    if (!text) return;
    input.value = "";
    input.style.height = "auto";
    if (this.state.messages.length === 0 && this.config.greeting) this.state.messages.push({ role: "agent", text: this.config.greeting });
    this.bubble("user", text);
    this.setBusy(true);
    const typing = h("div", { class: "typing", "aria-label": `${this.config.title} is typing` }, h("i"), h("i"), h("i"));
    this.log.append(typing);
    this.log.scrollTop = this.log.scrollHeight;
    try {
      let reply: ChatReply;
      try {
        reply = await this.api.chat(this.visitor, this.state.sessionId, text);
      } catch (err) {
        // The session ended meanwhile (idle, or closed in another tab): start a new one.
        if (!(err instanceof WidgetError && err.code === "session_ended")) throw err;
        this.state.sessionId = null;
        reply = await this.api.chat(this.visitor, null, text);
      }
      this.state.sessionId = reply.ended ? null : reply.sessionId;
      typing.remove();
      this.bubble("agent", reply.reply.text);
    } catch (err) {
      typing.remove();
      const e = err as WidgetError;
      console.warn(`${PREFIX} message not sent: ${e.message}`);
      this.note(
        e.status === 429
          ? `Too many messages. Try again in ${e.retryAfter ?? 60} s.`
          : e.status === 402
            ? "The assistant is unavailable right now."
            : "Sorry, the message could not be sent. Please try again.",
        true,
      );
    } finally {
      this.setBusy(false);
      input.focus();
    }
  }

  private setBusy(busy: boolean): void {
    this.busy = busy;
    if (this.sendButton) this.sendButton.disabled = busy;
    this.log.setAttribute("aria-busy", String(busy));
  }

  private async startCall(): Promise<void> {
    const { button, state } = this.callRefs;
    const labels = CALL_STATE_LABELS;
    const call = new VoiceCall({
      state: (s, detail) => {
        state.textContent = detail ?? labels[s];
        const over = s === "ended" || s === "failed";
        button.textContent = over ? "Start call" : "Hang up";
        button.className = over ? "" : "hang";
        button.disabled = false;
        if (over) this.call = null;
      },
      transcript: (role, text) => this.bubble(role, text),
      speaking: (agent) => {
        if (this.call) state.textContent = agent ? "Speaking…" : labels.live;
      },
    });
    this.call = call;
    button.textContent = "Hang up";
    button.className = "hang";
    await call.start(() => this.api.webCall(this.visitor));
  }
}

interface Namespace {
  version: string;
  widgets: Widget[];
  open(): void;
  close(): void;
}

declare global {
  interface Window {
    ServiceWidget?: Namespace;
  }
}

async function boot(script: HTMLScriptElement): Promise<void> {
  const token = script.getAttribute("data-service-token")?.trim();
  if (!token) {
    console.warn(`${PREFIX} the script tag has no data-service-token: nothing to show.`);
    return;
  }
  let base: string;
  try {
    base = new URL(script.src).origin;
  } catch {
    return;
  }
  const api = new Api(base, token);
  let config: WidgetConfig;
  try {
    config = await api.config();
  } catch (err) {
    const e = err as WidgetError;
    // Quiet on the page, clear in the console.
    console.warn(`${PREFIX} not shown (${e.status || "network"} ${e.code}): ${e.message}`);
    return;
  }
  const host = document.createElement("service-widget");
  // Inline !important beats the host page's stylesheets: the host element stays invisible to layout.
  host.setAttribute("style", "all:initial!important;display:block!important;position:static!important");
  const mount = () => {
    document.body.append(host);
    const widget = new Widget(host, api, config, visitorId());
    namespace().widgets.push(widget);
  };
  if (document.body) mount();
  else document.addEventListener("DOMContentLoaded", mount, { once: true });
}

function namespace(): Namespace {
  if (!window.ServiceWidget) {
    const ns: Namespace = {
      version: VERSION,
      widgets: [],
      open: () => ns.widgets[0]?.open(),
      close: () => ns.widgets[0]?.close(),
    };
    window.ServiceWidget = ns;
  }
  return window.ServiceWidget;
}

namespace();
const booted = new WeakSet<HTMLScriptElement>();
const current = document.currentScript as HTMLScriptElement | null;
const scripts = current ? [current] : Array.from(document.querySelectorAll<HTMLScriptElement>("script[data-service-token]"));
for (const script of scripts) {
  if (booted.has(script) || script.hasAttribute("data-service-widget-loaded")) continue;
  booted.add(script);
  script.setAttribute("data-service-widget-loaded", "");
  void boot(script);
}
