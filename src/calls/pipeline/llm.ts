// The LLM stage: a reply request becomes the agent's turn (src/tools/runtime.ts: its tools, the
// end_call, transfer_call and send_dtmf decisions), its streamed text cut into sentence-sized chunks
// (SentenceChunker) and sent down in clause-sized pieces as they are written (a chunk's pieces but
// its last are `partial`), so speech starts on the first clause, and a voice that takes text as it
// comes speaks each piece at once. Tool turns ride with the words said after them. An interruption
// or the call's end cancels the request in flight (its AbortSignal reaches the provider's socket).
import { ProviderError } from "../../providers/http";
import type { AgentTurn, LiveTurn, Round, Say } from "../../tools/runtime";
import { type ChunkPiece, SentenceChunker } from "../utterance";
import type { AfterReply, Direction, Frame, FrameOf, ReplyRetrieval, ToolTurn } from "./frames";
import { type Clock, Stage } from "./pipeline";

/** A request we cancelled (a barge-in): not a failure of the call. */
export const isCancel = (err: unknown) => err instanceof ProviderError && err.failure === "canceled";

export interface LlmPort {
  /** The agent's turn on `messages`, with its tools; `live` streams its rounds. */
  turn(messages: FrameOf<"reply">["messages"], live: LiveTurn, say?: Say): Promise<AgentTurn>;
  /** One streamed round: each piece of text to `onText` as it comes. */
  stream(
    messages: Parameters<Round>[0],
    offer: Parameters<Round>[1],
    onText: (text: string) => void,
    signal: AbortSignal,
  ): Promise<{ text: string; toolCalls: Awaited<ReturnType<Round>>["toolCalls"] }>;
}

const NOTHING_AFTER: AfterReply = { ended: false, transfer: null };

export class LlmStage extends Stage {
  readonly name = "llm";
  private current: { reply: number; cancel: AbortController; commit: (() => void) | null } | null = null;
  private ended = false;

  constructor(
    private readonly port: LlmPort,
    private readonly clock: Clock,
    /** `serial`: the whole answer, then its speech (the bench's baseline loop). */
    private readonly mode: "streaming" | "serial" = "streaming",
  ) {
    super();
  }

  process(frame: Frame, _direction: Direction): boolean {
    switch (frame.type) {
      case "reply":
        void this.track(this.respond(frame));
        return false; // TTS holds a speculative reply's words until its commit
      case "interruption":
        if (this.current?.reply === frame.reply) this.current.cancel.abort();
        return true;
      case "commit":
        if (this.current?.reply === frame.reply) this.current.commit?.();
        return false; // TTS releases what it held
      case "discard":
        if (this.current?.reply === frame.reply) this.current.cancel.abort();
        return false;
      case "end":
        this.ended = true;
        this.current?.cancel.abort();
        return true;
      default:
        return false;
    }
  }

  private async respond(frame: FrameOf<"reply">): Promise<void> {
    const { reply, timing } = frame;
    const cancel = new AbortController();
    // A speculative reply streams its words at once, but its tools (side effects) wait for the commit.
    let committed: Promise<void> = Promise.resolve();
    const current = { reply, cancel, commit: null as (() => void) | null };
    if (frame.speculative)
      committed = new Promise<void>((resolve, reject) => {
        current.commit = resolve;
        cancel.signal.addEventListener("abort", () => reject(cancel.signal.reason));
      });
    committed.catch(() => undefined);
    this.current = current;
    const t1 = this.clock.now();
    let llmMs: number | null = null;
    let firstAt = 0;
    /** Tool turns of rounds since the last words were sent: they enter the transcript when the next words play. */
    let ran: ToolTurn[] = [];
    /** What retrieval took, known before the first round: it rides with the words, into the reply's latency. */
    let retrieval: ReplyRetrieval | undefined;
    const onRetrieval: LiveTurn["onRetrieval"] = (r) => {
      retrieval = { waitMs: r.waitMs, prefetched: r.prefetched };
    };
    const add = (pieces: ChunkPiece[]) => {
      for (const { text, partial } of pieces) {
        const at = this.clock.now();
        llmMs ??= at - t1;
        firstAt ||= at;
        if (cancel.signal.aborted || this.ended) continue;
        // A chunk's empty end (its words went down as pieces) carries no tool turns: the next words do.
        const tools = text ? ran : [];
        if (text) ran = [];
        this.push({
          type: "llm-text",
          reply,
          text,
          tools,
          llmMs,
          firstAt,
          at,
          timing,
          ...(partial && { partial }),
          ...(retrieval && { retrieval }),
        });
      }
    };
    const whole = (text: string): ChunkPiece[] => [{ text, partial: false }];
    const onToolRound: LiveTurn["onToolRound"] = (messages, turns) => {
      this.push({ type: "history", messages }, "up");
      ran.push(...turns);
    };
    let after = NOTHING_AFTER;
    try {
      if (this.mode === "serial") {
        await committed; // whole answers: nothing to win by starting before the turn is over
        const result = await this.port.turn(frame.messages, { onToolRound, onRetrieval });
        // Whole answers: what the tools' start messages said leads the reply.
        const text = [...result.turns.flatMap((t) => (t.role === "agent" ? [t.text] : [])), result.text].filter(Boolean).join(" ");
        add(text ? whole(text) : []);
        after = { ended: result.ended, transfer: result.transfer, ...(result.dtmf && { dtmf: result.dtmf }) };
      } else {
        const chunker = new SentenceChunker();
        // Each round's words are spoken as they stream; the tools' messages are said in their place.
        const round: Round = async (messages, offer) => {
          const streamed = await this.port.stream(messages, offer, (text) => add(chunker.pieces(text)), cancel.signal);
          add(chunker.flushPieces());
          if (streamed.toolCalls.length > 0) await committed;
          return { content: streamed.text.trim(), toolCalls: streamed.toolCalls };
        };
        const say = async (text: string) => {
          add(chunker.flushPieces());
          add(whole(text));
        };
        const result = await this.port.turn(frame.messages, { round, onToolRound, onRetrieval }, say);
        after = { ended: result.ended, transfer: result.transfer, ...(result.dtmf && { dtmf: result.dtmf }) };
      }
    } catch (error) {
      if (!isCancel(error) && !cancel.signal.aborted) {
        cancel.abort();
        this.push({ type: "error", stage: "llm", error });
      }
    } finally {
      if (this.current?.cancel === cancel) this.current = null;
    }
    this.push({ type: "llm-done", reply, after: this.ended ? NOTHING_AFTER : after, tools: ran });
  }
}
