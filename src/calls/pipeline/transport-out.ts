// Transport out: the agent's audio to the caller (Twilio or the browser), a mark after each reply
// so we know when it has played, and what is playing on the caller's timeline. The caller speaking
// over it is a barge-in: the audio not yet played is cleared, an interruption goes to every stage,
// and what the caller heard (whole chunks, and the share of words of the one playing) goes up to
// the context. Once a reply has played (or was cut), what it decided happens: the end of the call,
// a transfer or keys pressed (send_dtmf), as an action for the session. A keypad entry cuts the
// agent off like speech.

import type { TransferDestination } from "../../db/schema";
import type { EndedReason } from "../states";
import type { Transport } from "../transports";
import { heardBeforeCut, heardText, type PlayedChunk } from "../utterance";
import { saysFarewell } from "./farewell";
import type { Direction, Frame, FrameOf } from "./frames";
import { type Clock, Stage } from "./pipeline";

/** A mark that never comes back (a lost message) stops counting as playing after this much extra time. */
export const MARK_GRACE_MS = 3_000;

interface Playing {
  reply: number;
  /** The mark sent after the reply's last audio; null while its audio is still streaming. */
  mark: string | null;
  /** When the current turn's audio started (epoch ms): a tool round between words starts a new turn. */
  sentAt: number;
  /** When the audio sent so far ends playing (epoch ms). */
  endsAt: number;
  /** The reply's chunks on the playback timeline; the current turn's from `fromChunk`. */
  chunks: PlayedChunk[];
  fromChunk: number;
  /** The current turn's words. */
  text: string;
}

export class TransportOutStage extends Stage {
  readonly name = "transport-out";
  private playingNow: Playing | null = null;
  private endAfter: EndedReason | null = null;
  private transferTo: TransferDestination | null = null;
  /** Keys send_dtmf presses once the reply has played. */
  private keysAfter: string | null = null;
  private ended = false;

  constructor(
    private readonly transport: Transport,
    private readonly endCallPhrases: readonly string[],
    private readonly clock: Clock,
  ) {
    super();
  }

  /** The reply playing (its audio sent and not yet heard to its end), if any. */
  get playing(): Readonly<Playing> | null {
    return this.playingNow;
  }

  process(frame: Frame, _direction: Direction): boolean {
    const p = this.playingNow;
    switch (frame.type) {
      case "audio-out":
        this.transport.sendAudio(frame.samples);
        if (p?.reply === frame.reply) {
          p.endsAt = frame.playhead;
          const last = p.chunks.at(-1);
          if (last) last.endAt = frame.playhead;
        }
        return true;
      case "first-audio":
        this.playingNow = { reply: frame.reply, mark: null, sentAt: frame.at, endsAt: frame.at, chunks: [], fromChunk: 0, text: "" };
        this.push({ type: "agent-speaking", speaking: true, at: frame.at }, "up");
        this.push({ type: "agent-started", reply: frame.reply, at: frame.at, latency: frame.latency }, "up");
        return true;
      case "chunk-started":
        if (p?.reply !== frame.reply) return true; // cut already
        if (frame.tools.length) {
          this.push({ type: "agent-tools", reply: frame.reply, at: this.clock.now(), tools: frame.tools }, "up");
          if (p.text) {
            p.fromChunk = p.chunks.length;
            p.sentAt = this.clock.now();
            p.text = "";
          }
        }
        p.chunks.push({ text: frame.text, startAt: frame.startAt, endAt: frame.startAt });
        p.text = p.text ? `${p.text} ${frame.text}` : frame.text;
        this.push({ type: "agent-words", reply: frame.reply, text: frame.text }, "up");
        return true;
      case "speech-done":
        return this.done(frame);
      case "mark":
        if (p?.mark && p.mark === frame.name) {
          this.stopped(frame.at);
          this.afterPlayback();
        }
        return true;
      case "speech-started":
      case "keys-pressed":
        if (p) this.bargeIn(p, frame.at);
        return true;
      case "hangup":
        if (p) this.keepHeard(p, frame.at);
        return true;
      case "notify":
        this.transport.notify(frame.event);
        return true;
      case "end":
        this.ended = true;
        return true;
      default:
        return false;
    }
  }

  /** The playing reply's mark is overdue (lost): treat it as heard. */
  tick(now: number): void {
    const p = this.playingNow;
    if (p?.mark && now > p.endsAt + MARK_GRACE_MS) this.process({ type: "mark", name: p.mark, at: now }, "down");
  }

  private done(frame: FrameOf<"speech-done">): true {
    if (frame.after.transfer) this.transferTo = frame.after.transfer;
    else if (frame.after.ended) this.endAfter = "agent-ended-call";
    else if (frame.after.dtmf) this.keysAfter = frame.after.dtmf;
    const p = this.playingNow;
    if (p?.reply === frame.reply && !frame.cut && !this.ended) {
      p.mark = `reply-${frame.reply}`;
      this.transport.sendMark(p.mark);
      this.push({ type: "agent-sent", reply: frame.reply, endsAt: p.endsAt }, "up");
      if (saysFarewell(p.text, this.endCallPhrases)) this.endAfter ??= "agent-ended-call";
    }
    this.push({ type: "reply-done", reply: frame.reply, tools: frame.tools }, "up");
    // Cut before its mark (a barge-in during the goodbye), or nothing was said: still end or hand on.
    if (!this.playingNow && !this.ended) this.afterPlayback();
    return true;
  }

  /**
   * The caller spoke over the agent: stop its audio, cancel what of the reply is still being made,
   * and keep what the caller heard of it, marked interrupted (in the transcript and the LLM history).
   */
  private bargeIn(p: Playing, at: number): void {
    this.stopped(at);
    this.broadcast({ type: "interruption", reply: p.reply, at });
    this.transport.clear();
    const heard = heardBeforeCut(p.chunks.slice(p.fromChunk), at); // the word being said counts: the caller heard it begin
    const endAt = Math.max(p.sentAt, Math.min(p.endsAt, at));
    console.log(
      JSON.stringify({
        level: "info",
        msg: "barge-in",
        playedMs: Math.round(endAt - p.sentAt),
        of: Math.round(p.endsAt - p.sentAt),
        streaming: !p.mark,
      }),
    );
    const unheard = p.text.split(/\s+/).slice(heard.split(/\s+/).filter(Boolean).length).join(" ");
    this.push({ type: "agent-cut", reply: p.reply, heard, at, endAt, drop: false, notify: !p.mark, unheard }, "up");
    this.afterPlayback();
  }

  /**
   * The caller hung up while the agent was speaking: its turn keeps what the caller heard (marked
   * interrupted, as after a barge-in). A reply they heard nothing of is no turn at all while it was
   * still streaming (its speech was sent ahead of playback, not heard); once it was sent whole and
   * shown (the web page's transcript line), it is kept as sent, marked interrupted.
   */
  private keepHeard(p: Playing, at: number): void {
    this.stopped(at);
    this.broadcast({ type: "interruption", reply: p.reply, at });
    const heard = heardText(p.chunks.slice(p.fromChunk), at);
    if (heard === p.text && at >= p.endsAt) return; // heard to its end
    const endAt = Math.min(p.endsAt, at);
    if (!heard && !p.mark) this.push({ type: "agent-cut", reply: p.reply, heard, at, endAt, drop: true, notify: false }, "up");
    else this.push({ type: "agent-cut", reply: p.reply, heard: heard || p.text, at, endAt, drop: false, notify: false }, "up");
  }

  private stopped(at: number): void {
    this.playingNow = null;
    this.push({ type: "agent-speaking", speaking: false, at }, "up");
  }

  /** What the last reply asked for once it was heard (or cut): a transfer, or the end of the call. */
  private afterPlayback(): void {
    if (this.transferTo) {
      const to = this.transferTo;
      this.transferTo = null;
      this.push({ type: "action", action: { kind: "hand-on", to } });
    } else if (this.endAfter) this.push({ type: "action", action: { kind: "end", reason: this.endAfter } });
    else if (this.keysAfter) {
      const digits = this.keysAfter;
      this.keysAfter = null;
      this.push({ type: "action", action: { kind: "press", digits } });
    }
  }
}
