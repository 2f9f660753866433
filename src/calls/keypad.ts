// The phone's keypad (DTMF), both ways (docs/calls.md, "Keypad (DTMF)"). In: the caller's key
// presses (Twilio's `dtmf` stream message, one key each) grouped into one entry, as an IVR reads
// "1 2 3 #": keys pressed close together are one entry, which `#` or a pause of KEYPAD_GAP_MS ends;
// the entry is a caller turn, "[keypad] 1 2 3 #". Out: the keys send_dtmf presses, checked here
// (what Twilio's <Play digits> plays: 0-9, *, # and `w`, half a second of pause).

/** A pause this long after the last key ends the entry (IVRs wait about as long between keys). */
export const KEYPAD_GAP_MS = 1_500;
/** An entry this long ends at once (a card number and its `#` fit). */
export const MAX_ENTRY_KEYS = 32;
/** The keys of one send_dtmf call, pauses included. */
export const MAX_DTMF_DIGITS = 64;
/** A `w` in <Play digits>: half a second of pause (Twilio's). */
export const DTMF_PAUSE_MS = 500;

/** A key the caller pressed: Twilio sends 0-9, * and #; A-D exist on some phones. */
const KEY = /^[0-9*#A-D]$/;
const SENDABLE = /^[0-9*#w]+$/;

export const isKey = (digit: unknown): digit is string => typeof digit === "string" && KEY.test(digit);

/** How an entry reads in the transcript and to the LLM: `[keypad] 1 2 3 #`. */
export const keypadText = (digits: string) => `[keypad] ${[...digits].join(" ")}`;

/** What the agent is told about keypad turns (appended to its instructions on a call). */
export const KEYPAD_INSTRUCTIONS =
  "A caller message that starts with [keypad] is the keys the caller pressed on their phone's keypad, in order.";

/** Why send_dtmf's `digits` cannot be pressed, or null when they can. */
export function dtmfProblem(digits: unknown): string | null {
  if (typeof digits !== "string" || digits.length === 0)
    return 'digits is required: the keys to press, such as "1" or "1234#" (0-9, * and #; w waits half a second)';
  if (digits.length > MAX_DTMF_DIGITS) return `digits may hold at most ${MAX_DTMF_DIGITS} keys and pauses; got ${digits.length}`;
  if (!SENDABLE.test(digits)) return `digits may hold only 0-9, *, # and w (half a second of pause); got ${JSON.stringify(digits)}`;
  if (!/[^w]/.test(digits)) return "digits must press at least one key, not only pauses";
  return null;
}

/** One key's tone and the gap after it, about (carriers play 100 ms tones with as much silence or more). */
export const DTMF_KEY_MS = 250;
/** How long <Play digits> takes to play them, about: each key's tone and gap, each `w` half a second. */
export const dtmfPlayMs = (digits: string) => [...digits].reduce((ms, d) => ms + (d === "w" ? DTMF_PAUSE_MS : DTMF_KEY_MS), 0);

/** One entry: its keys in order, when the first and the last were pressed, and when the entry ended. */
export interface KeypadEntry {
  digits: string;
  startAt: number;
  lastAt: number;
  endAt: number;
}

/** The caller's keys, grouped into entries: `#`, MAX_ENTRY_KEYS keys or a KEYPAD_GAP_MS pause ends one. */
export class KeypadBuffer {
  private keys = "";
  private startAt = 0;
  private lastAt = 0;

  constructor(private readonly gapMs = KEYPAD_GAP_MS) {}

  /** An entry is being typed. */
  get open(): boolean {
    return this.keys.length > 0;
  }

  /** A key pressed at `at`: the entry it ends (`#`, or the longest entry), else null. */
  press(digit: string, at: number): KeypadEntry | null {
    if (!isKey(digit)) return null;
    // A late message's time never goes back: the entry ends after its last key.
    if (!this.open) this.startAt = at;
    this.keys += digit;
    this.lastAt = Math.max(this.lastAt, at);
    return digit === "#" || this.keys.length >= MAX_ENTRY_KEYS ? this.close(this.lastAt) : null;
  }

  /** The entry the pause has ended by `now`, if any (it ends when the pause was over, not when this is asked). */
  due(now: number): KeypadEntry | null {
    return this.open && now - this.lastAt >= this.gapMs ? this.close(this.lastAt + this.gapMs) : null;
  }

  private close(endAt: number): KeypadEntry {
    const entry = { digits: this.keys, startAt: this.startAt, lastAt: this.lastAt, endAt };
    this.keys = "";
    this.lastAt = 0;
    return entry;
  }
}
