// One widget on the page: a launcher button and a chat (and/or voice) panel, inside the shadow
// root of its host element. `configure()` changes its look (colours, position, title, greeting,
// mode) in place, keeping the conversation: the dashboard's live preview calls it as its form is
// edited (widget/src/widget-preview.ts).
import { type Api, type ChatReply, type WidgetConfig, WidgetError } from "./api";
import { store } from "./storage";
import { CSS } from "./styles";
import { h, ICONS, icon } from "./ui";
import { CALL_STATE_LABELS, VoiceCall } from "./voice";

export const PREFIX = "[ServiceWidget]";

/** What `configure()` may change: the widget's public settings but its id. */
export type Look = Omit<WidgetConfig, "widgetId">;

interface Saved {
  sessionId: string | null;
  messages: Array<{ role: "agent" | "user"; text: string }>;
  open: boolean;
}

const VOICE_NOTE = "Start a call and allow the microphone to talk with us.";

export class Widget {
  private readonly root: HTMLDivElement;
  private readonly launcher: HTMLButtonElement;
  private readonly closeButton: HTMLButtonElement;
  private readonly heading: HTMLHeadingElement;
  private readonly panel: HTMLDivElement;
  private readonly log: HTMLDivElement;
  /** The panel's parts that depend on the mode (after the log). */
  private parts: HTMLElement[] = [];
  private input: HTMLTextAreaElement | null = null;
  private sendButton: HTMLButtonElement | null = null;
  private callButton: HTMLButtonElement | null = null;
  private callState: HTMLSpanElement | null = null;
  private readonly saved = store("sessionStorage");
  private readonly savedKey: string;
  private state: Saved;
  private busy = false;
  private call: VoiceCall | null = null;
  private config: WidgetConfig;

  constructor(
    readonly host: HTMLElement,
    private readonly api: Api,
    config: WidgetConfig,
    private readonly visitor: string,
  ) {
    this.config = { ...config, colors: { ...config.colors } };
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
    const panelId = "sw-panel";
    const titleId = "sw-title";
    this.root = h("div", { class: "root" });
    this.launcher = h("button", { type: "button", class: "launcher", "aria-expanded": "false", "aria-controls": panelId });
    this.launcher.addEventListener("click", () => (this.panel.hidden ? this.open() : this.close()));
    this.closeButton = h("button", { type: "button" });
    this.closeButton.append(icon(ICONS.close));
    this.closeButton.addEventListener("click", () => this.close());
    this.heading = h("h2", { id: titleId });
    this.log = h("div", { class: "log", role: "log", "aria-live": "polite", "aria-label": "Conversation" });
    this.panel = h("div", { class: "panel", id: panelId, role: "dialog", "aria-labelledby": titleId });
    this.panel.hidden = true;
    this.panel.append(h("div", { class: "head" }, this.heading, this.closeButton));
    this.panel.addEventListener("keydown", (e) => {
      if (e.key === "Escape") {
        e.stopPropagation();
        this.close();
      }
    });
    // The panel sits above the launcher in the layout, but after it in the tab order.
    this.root.append(this.panel, this.launcher);
    shadow.append(this.root);

    this.applyLook();
    this.buildParts();
    this.replay();
    if (this.state.open) this.open(false);
  }

  /** The settings it shows now. */
  get look(): Look {
    const { widgetId: _id, ...look } = this.config;
    return { ...look, colors: { ...look.colors } };
  }

  /**
   * Shows new settings at once, keeping the conversation: colours, position and title in place;
   * a new mode rebuilds the panel's controls (hanging up a call); a new greeting shows while no
   * conversation has started.
   */
  configure(look: Partial<Look>): void {
    const before = this.config;
    this.config = { ...before, ...look, colors: { ...before.colors, ...look.colors } };
    const modeChanged = this.config.mode !== before.mode;
    this.applyLook(modeChanged);
    if (modeChanged) {
      this.call?.hangup();
      this.call = null;
      this.buildParts();
    }
    if (modeChanged || (this.state.messages.length === 0 && this.config.greeting !== before.greeting)) this.replay();
  }

  /**
   * Colours, side, title and labels; the launcher's icon only when the mode changed (`newMode`):
   * replacing it under a pressed pointer would lose the click (the preview restyles on a field's
   * `change`, which fires as the pointer goes down on the launcher).
   */
  private applyLook(newMode = true): void {
    const { colors, title, mode, position } = this.config;
    this.root.className = `root ${position === "bottom-left" ? "left" : "right"}`;
    for (const [name, value] of [
      ["--a", colors.accent],
      ["--at", colors.accentText],
      ["--b", colors.background],
      ["--t", colors.text],
    ] as const) {
      this.root.style.setProperty(name, value);
    }
    const what = mode === "voice" ? "voice assistant" : "chat";
    this.heading.textContent = title;
    this.launcher.setAttribute("aria-label", `Open ${what}: ${title}`);
    if (newMode) this.launcher.replaceChildren(icon(mode === "voice" ? ICONS.mic : ICONS.chat));
    this.closeButton.setAttribute("aria-label", `Close ${what}`);
  }

  /** The controls of the mode: the message box (chat), the call bar (voice), or both. */
  private buildParts(): void {
    for (const part of this.parts) part.remove();
    this.input = this.sendButton = this.callButton = this.callState = null;
    const { mode } = this.config;
    if (mode === "voice") {
      const bar = this.callBar();
      bar.classList.add("big");
      this.parts = [bar];
    } else {
      this.parts = mode === "both" ? [this.callBar(), this.messageForm()] : [this.messageForm()];
    }
    this.panel.append(this.log, ...this.parts);
  }

  private messageForm(): HTMLFormElement {
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
    this.input = input;
    this.sendButton = send;
    return form;
  }

  private callBar(): HTMLElement {
    const state = h("span", { class: "state", role: "status" }, "Talk to us by voice.");
    const button = h("button", { type: "button" }, "Start call");
    button.addEventListener("click", () => (this.call ? this.call.hangup() : void this.startCall()));
    this.callButton = button;
    this.callState = state;
    return h("div", { class: "call" }, state, button);
  }

  /** The conversation so far, or the greeting when there is none. */
  private replay(): void {
    this.log.replaceChildren();
    const { greeting, mode } = this.config;
    if (this.state.messages.length > 0) for (const m of this.state.messages) this.bubble(m.role, m.text, false);
    else if (greeting && mode !== "voice") this.bubble("agent", greeting, false);
    if (mode === "voice") this.note(VOICE_NOTE);
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
    this.replay();
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
    const button = this.callButton;
    const state = this.callState;
    if (!button || !state) return;
    const labels = CALL_STATE_LABELS;
    const call = new VoiceCall({
      state: (s, detail) => {
        state.textContent = detail ?? labels[s];
        const over = s === "ended" || s === "failed";
        button.textContent = over ? "Start call" : "Hang up";
        button.className = over ? "" : "hang";
        button.disabled = false;
        if (over && this.call === call) this.call = null;
      },
      transcript: (role, text) => this.bubble(role, text),
      speaking: (agent) => {
        if (this.call === call) state.textContent = agent ? "Speaking…" : labels.live;
      },
    });
    this.call = call;
    button.textContent = "Hang up";
    button.className = "hang";
    await call.start(() => this.api.webCall(this.visitor));
  }
}
