// The telephony sandbox's keypad (DTMF), both ways. The worker presses keys by updating the call
// with <Play digits> and a new <Connect><Stream> (telephony.ts plays it: the stream stops, the keys
// play, a new stream opens); the IVR callee hears them and answers on the new stream. The keypad
// callee presses keys itself: Twilio's `dtmf` stream messages (media-stream.ts sends them). See
// docs/sandbox.md, "Keypad (DTMF)".

/** The IVR's menu, said as soon as the stream starts (an IVR speaks first) and after an invalid choice. */
export const IVR_MENU = "Press 1 for appointments, 2 for billing.";
/** What each department says once its key was pressed. */
export const IVR_DEPARTMENTS: Readonly<Record<string, { choice: IvrChoice; line: string }>> = {
  "1": { choice: "appointments", line: "Appointments. How can I help?" },
  "2": { choice: "billing", line: "Billing. How can I help?" },
};
export const IVR_INVALID = "Invalid choice.";
/** The IVR's first menu waits this long after the stream starts (the line settles, as after a real answer). */
export const IVR_ANSWER_DELAY_MS = 1_000;
/** The keypad callee's keys, pressed once the agent's first words are over (one entry: `#` ends it). */
export const KEYPAD_KEYS = "12#";
/** Time between two of the keypad callee's keys. */
export const KEY_INTERVAL_MS = 150;
/** One key of <Play digits>: its tone and the gap after it; a `w` is half a second (Twilio's). */
export const PLAY_KEY_MS = 200;
export const PLAY_PAUSE_MS = 500;

export type IvrChoice = "appointments" | "billing" | "invalid";

/** What the IVR did: menus said, the keys it heard (pauses left out), its choices in order. */
export interface IvrRecord {
  menus: number;
  heard: string;
  choices: IvrChoice[];
}

/** <Play digits>: the keys Twilio plays, 0-9, *, # and `w` (half a second of pause). */
export const PLAYABLE_DIGITS = /^[0-9*#w]+$/;

/** How long <Play digits="…"> plays. */
export const playMs = (digits: string) => [...digits].reduce((ms, d) => ms + (d === "w" ? PLAY_PAUSE_MS : PLAY_KEY_MS), 0);

/** What a keypad scenario needs from its callee. */
export interface KeypadCalleeLine {
  say(text: string): Promise<void>;
  /** Sends one `dtmf` message on the stream. */
  press(digit: string): void;
  after(ms: number, fn: () => void): void;
  hangUp(): void;
}

export interface KeypadCallee {
  /** A media stream started (the first, or the one after the worker's keys). */
  connected(): void;
  agentStarted(): void;
  agentFinished(): void;
  /** The worker's <Play digits> played these keys. */
  heard(digits: string): void;
}

/**
 * The IVR: says its menu once the call's stream has started; keys played to it (<Play digits>) choose a
 * department, which it names on the stream that follows ("Appointments. How can I help?"), or
 * "Invalid choice." and the menu again. Then it waits in silence.
 */
export class Ivr implements KeypadCallee {
  readonly record: IvrRecord = { menus: 0, heard: "", choices: [] };
  private unread = "";

  constructor(private readonly line: KeypadCalleeLine) {}

  connected(): void {
    // Keys pressed before the menu was said count too (an IVR takes keys typed ahead).
    if (!this.unread) {
      if (this.record.menus === 0)
        this.line.after(IVR_ANSWER_DELAY_MS, () => {
          if (this.record.menus === 0 && this.record.choices.length === 0) void this.menu();
        });
      return;
    }
    const key = this.unread.replace(/[^0-9*#]/g, "")[0] ?? "";
    this.unread = "";
    const department = IVR_DEPARTMENTS[key];
    this.record.choices.push(department?.choice ?? "invalid");
    if (department) void this.line.say(department.line);
    else void this.line.say(IVR_INVALID).then(() => this.menu());
  }

  agentStarted(): void {}
  agentFinished(): void {}

  heard(digits: string): void {
    const keys = digits.replaceAll("w", "");
    this.record.heard += keys;
    this.unread += keys;
  }

  private menu(): Promise<void> {
    this.record.menus++;
    return this.line.say(IVR_MENU);
  }
}

/** The keypad callee: once the agent's first words are over (or after 3 s of its silence) it presses 1, 2, #; after the agent's answer it hangs up. */
export class KeyPresser implements KeypadCallee {
  private state: "waiting" | "pressed" | "done" = "waiting";
  private agentHeard = false;

  constructor(
    private readonly line: KeypadCalleeLine,
    private readonly firstWordsMs: number,
    private readonly hangUpDelayMs: number,
  ) {}

  connected(): void {
    this.line.after(this.firstWordsMs, () => {
      if (!this.agentHeard) this.press();
    });
  }

  agentStarted(): void {
    this.agentHeard = true;
  }

  agentFinished(): void {
    if (this.state === "waiting") this.line.after(200, () => this.press());
    else if (this.state === "pressed") {
      this.state = "done";
      this.line.after(this.hangUpDelayMs, () => this.line.hangUp());
    }
  }

  heard(): void {}

  private press(): void {
    if (this.state !== "waiting") return;
    this.state = "pressed";
    [...KEYPAD_KEYS].forEach((key, i) => {
      this.line.after(i * KEY_INTERVAL_MS, () => this.line.press(key));
    });
  }
}
