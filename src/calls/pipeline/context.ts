// The conversation: the LLM's history and the call's transcript, owned here and nowhere else. A
// caller's transcript becomes a user turn and a reply request; known text (the first message) goes
// to speech as it is. Replies run one at a time, in the order their turns ended. What the caller
// heard comes back up from the transport (started, words, tools between words, sent, cut) and is
// written into the agent's turn and its history entry.
import type { TranscriptTurn } from "../../db/schema";
import type { ChatMessage } from "../../providers/types";
import { keypadText } from "../keypad";
import { substantiveWords } from "./backchannels";
import type { Direction, Frame, FrameOf, ToolTurn } from "./frames";
import { Stage } from "./pipeline";

/** Voice activity starts a turn this long after its first sound (start delay, pre-roll aside): the turn that cut the agent began by then. */
const CUT_TURN_SLACK_MS = 300;

type Work = FrameOf<"transcript"> | FrameOf<"keypad"> | { type: "say"; text: string; prepared?: Uint8Array };

interface Spoken {
  turn: TranscriptTurn;
  /** The reply's entry in the LLM history: after a barge-in, what the caller heard. */
  said: ChatMessage;
}

export interface ContextOptions {
  systemPrompt: string;
  /** When the call connected (epoch ms): turn times are relative to it. */
  connectedAt: number;
  /** Saves the transcript so far (deferred; the final write is the call's end). */
  save(turns: TranscriptTurn[]): void;
}

export class ContextStage extends Stage {
  readonly name = "context";
  readonly history: ChatMessage[];
  readonly turns: TranscriptTurn[] = [];
  private readonly queue: Work[] = [];
  private replying: number | null = null;
  private replies = 0;
  /** The agent's turn of the reply playing now (a reply's audio is sent ahead: it can be cut after it is done). */
  private readonly spoken = new Map<number, Spoken>();
  /** The last barge-in: when, and what of the reply the caller did not hear (resumed after a false interruption). */
  private lastCut: { at: number; unheard: string } | null = null;
  /** Replies resumed after a false interruption. */
  resumed = 0;
  /** A reply started on a speculative transcript, until the turn's outcome: its user turn and history entry. */
  private speculation: { reply: number; turn: TranscriptTurn; said: ChatMessage } | null = null;

  constructor(private readonly opts: ContextOptions) {
    super();
    this.history = [{ role: "system", content: opts.systemPrompt }];
  }

  /** No reply in progress and none waiting. */
  get idle(): boolean {
    return this.replying === null && this.queue.length === 0;
  }

  /** Speaks known text as the agent's turn, in its place among the replies. */
  say(text: string, prepared?: Uint8Array): void {
    this.queue.push({ type: "say", text, prepared });
    this.next();
  }

  /** A note for the agent's next replies (a system message in its history), not a turn of the transcript. */
  note(text: string): void {
    this.history.push({ role: "system", content: text });
  }

  /** The caller's last words, said as the call ended: kept in the transcript, not answered. */
  addLastWords(text: string, speechStartAt: number, speechEndAt: number): void {
    const { connectedAt } = this.opts;
    this.turns.push({ role: "user", text, startMs: speechStartAt - connectedAt, endMs: speechEndAt - connectedAt });
  }

  process(frame: Frame, _direction: Direction): boolean {
    switch (frame.type) {
      case "transcript":
        if (this.falseInterruption(frame)) return true;
        // A speculative transcript starts a reply only when nothing else is under way; else the final one will.
        if (frame.text && (!frame.speculative || this.idle)) {
          this.queue.push(frame);
          this.next();
        }
        return true;
      case "keypad":
        // Keys are a turn of their own: a later backchannel resumes nothing from before them.
        this.lastCut = null;
        this.queue.push(frame);
        this.next();
        return true;
      case "turn-outcome":
        return this.outcome(frame);
      case "history":
        this.history.push(...frame.messages);
        return true;
      case "agent-started":
        return this.started(frame);
      case "agent-words":
        return this.words(frame.reply, frame.text);
      case "agent-tools":
        return this.tools(frame);
      case "agent-sent":
        return this.sent(frame);
      case "agent-cut":
        return this.cut(frame);
      case "reply-done":
        for (const t of frame.tools) this.turns.push(this.toolTurn(t));
        if (this.replying === frame.reply) this.replying = null;
        this.next();
        return true;
      default:
        return false;
    }
  }

  private next(): void {
    if (this.replying !== null) return;
    const work = this.queue.shift();
    if (!work) return;
    const reply = ++this.replies;
    this.replying = reply;
    if (work.type === "say") {
      this.push({ type: "say", reply, text: work.text, prepared: work.prepared });
      return;
    }
    if (work.type === "keypad") {
      this.keys(reply, work);
      return;
    }
    const { connectedAt } = this.opts;
    const { end } = work;
    this.turns.push({
      role: "user",
      text: work.text,
      startMs: end.speechStartAt - connectedAt,
      endMs: end.speechEndAt - connectedAt,
      turnTaking: work.turnTaking,
    });
    const said: ChatMessage = { role: "user", content: work.text };
    this.history.push(said);
    const { waitMs: endpointingMs, discarded } = work.turnTaking;
    const timing = { speechEndAt: end.speechEndAt, endpointingMs, sttMs: work.sttMs, discarded };
    if (work.speculative) this.speculation = { reply, turn: this.turns.at(-1) as TranscriptTurn, said };
    else this.notify("user", work.text);
    this.push({ type: "reply", reply, messages: [...this.history], timing, speculative: work.speculative });
  }

  /** A keypad entry: the caller's turn (`dtmf` its keys), read by the LLM as `[keypad] 1 2 #`, answered like words. */
  private keys(reply: number, { digits, startAt, endAt, waitMs }: FrameOf<"keypad">): void {
    const { connectedAt } = this.opts;
    const text = keypadText(digits);
    this.turns.push({ role: "user", text, startMs: startAt - connectedAt, endMs: endAt - connectedAt, dtmf: digits });
    this.history.push({ role: "user", content: text });
    this.notify("user", text);
    const timing = { speechEndAt: endAt - waitMs, endpointingMs: waitMs, sttMs: 0, discarded: 0 };
    this.push({ type: "reply", reply, messages: [...this.history], timing });
  }

  /**
   * The speculative turn's outcome: confirmed, its reply goes on to be heard (its tools may run);
   * otherwise the reply is thrown away unheard, and its user turn with it (the final transcript
   * makes the turn again).
   */
  private outcome({ confirmed, at, transcript }: FrameOf<"turn-outcome">): true {
    const s = this.speculation;
    this.speculation = null;
    if (!s) {
      // No reply was started on the speculation (another was under way): the turn is answered as any other.
      if (confirmed && transcript) this.process(transcript, "down");
      return true;
    }
    if (confirmed) {
      this.notify("user", s.turn.text);
      this.push({ type: "commit", reply: s.reply, at });
      return true;
    }
    this.push({ type: "discard", reply: s.reply });
    this.turns.splice(this.turns.indexOf(s.turn), 1);
    this.history.splice(this.history.indexOf(s.said), 1);
    if (this.replying === s.reply) this.replying = null;
    this.next();
    return true;
  }

  private started(frame: FrameOf<"agent-started">): true {
    const at = frame.at - this.opts.connectedAt;
    const turn: TranscriptTurn = { role: "agent", text: "", startMs: at, endMs: at };
    if (frame.latency) turn.latency = frame.latency;
    const said: ChatMessage = { role: "assistant", content: "" };
    this.turns.push(turn);
    this.history.push(said);
    this.spoken.clear(); // an earlier reply can no longer be cut: this one plays now
    this.spoken.set(frame.reply, { turn, said });
    return true;
  }

  private words(reply: number, text: string): true {
    const s = this.spoken.get(reply);
    if (!s) return true;
    s.turn.text = s.turn.text ? `${s.turn.text} ${text}` : text;
    s.said.content = s.turn.text;
    return true;
  }

  /**
   * Words after a tool round start playing: the agent's turn so far is closed, the round's tool
   * turns follow it, and the words start a new turn, so the transcript reads agent, tool, agent in
   * the order the caller heard them (a tool's time is when it ran, but never before the words said
   * ahead of it: its start message is spoken while it runs). Nothing said before the tools: they
   * come first, and the turn goes on with the words.
   */
  private tools(frame: FrameOf<"agent-tools">): true {
    const s = this.spoken.get(frame.reply);
    if (!s?.turn.text) {
      for (const t of frame.tools) this.turns.push(this.toolTurn(t));
      return true;
    }
    s.turn.endMs = Math.round(frame.at - this.opts.connectedAt);
    for (const t of frame.tools) this.turns.push(this.toolTurn(t, s.turn.startMs));
    this.notify("agent", s.turn.text);
    const turn: TranscriptTurn = { role: "agent", text: "", startMs: s.turn.endMs, endMs: s.turn.endMs };
    const said: ChatMessage = { role: "assistant", content: "" };
    this.turns.push(turn);
    this.history.push(said);
    this.spoken.set(frame.reply, { turn, said });
    return true;
  }

  private sent(frame: FrameOf<"agent-sent">): true {
    const s = this.spoken.get(frame.reply);
    if (!s) return true;
    s.turn.endMs = Math.round(frame.endsAt - this.opts.connectedAt);
    this.notify("agent", s.turn.text);
    this.opts.save([...this.turns]);
    return true;
  }

  private cut(frame: FrameOf<"agent-cut">): true {
    const s = this.spoken.get(frame.reply);
    if (!s) return true;
    if (frame.drop) {
      const turn = this.turns.indexOf(s.turn);
      if (turn !== -1) this.turns.splice(turn, 1);
      const said = this.history.indexOf(s.said);
      if (said !== -1) this.history.splice(said, 1);
      return true;
    }
    if (frame.unheard) this.lastCut = { at: frame.at, unheard: frame.unheard };
    s.turn.interrupted = true;
    s.turn.text = frame.heard;
    s.said.content = frame.heard;
    s.turn.endMs = Math.round(frame.endAt - this.opts.connectedAt);
    if (frame.notify) {
      this.notify("agent", frame.heard);
      this.opts.save([...this.turns]);
    }
    return true;
  }

  /**
   * The turn that cut the agent was no turn: only backchannels ("mhm", "yeah", "okay") or noise the
   * provider made words of. The caller's words stay in the transcript; the agent is not asked for a
   * reply but says what it had not been heard saying (LiveKit's `resume_false_interruption`).
   */
  private falseInterruption(frame: FrameOf<"transcript">): boolean {
    const cut = this.lastCut;
    if (frame.speculative) return false;
    this.lastCut = null;
    if (!cut || !this.idle || substantiveWords(frame.text).length > 0) return false;
    // The turn that cut it: its speech began at the cut (batch), or before it (sound that lasted).
    if (frame.end.speechStartAt > cut.at + CUT_TURN_SLACK_MS) return false;
    const { connectedAt } = this.opts;
    if (frame.text)
      this.turns.push({
        role: "user",
        text: frame.text,
        startMs: frame.end.speechStartAt - connectedAt,
        endMs: frame.end.speechEndAt - connectedAt,
      });
    this.resumed++;
    this.say(cut.unheard);
    return true;
  }

  /** A tool turn for the transcript, at the time it ran, but not before `afterMs` (the words said ahead of it). */
  private toolTurn(t: ToolTurn, afterMs = 0): TranscriptTurn {
    const endMs = Date.parse(t.at) - this.opts.connectedAt;
    const startMs = Math.max(endMs - t.tool.latencyMs, afterMs);
    return { role: "tool", text: t.text, startMs, endMs: Math.max(endMs, startMs), tool: t.tool };
  }

  private notify(role: "user" | "agent", text: string): void {
    this.push({ type: "notify", event: { type: "transcript", role, text } });
  }
}
