// The TTS stage: each chunk of a reply (or known text) becomes speech as soon as it is complete,
// its request started at once so chunk n+1 is made while chunk n plays, and the audio goes down in
// chunk order as it comes (src/calls/utterance.ts). A voice that takes text as it is written (the
// port's `openSpeech`: a Cartesia voice) speaks a reply through one session instead, fed each
// clause-sized piece as it arrives (./tts-input.ts). The first audio carries the turn's latency;
// each chunk's start carries the tool turns said in its place. An interruption or the call's end
// cancels what is still being made.
import { SentenceChunker, Utterance } from "../utterance";
import type { AfterReply, Direction, Frame, FrameOf, ReplyRetrieval, ReplyTiming, ToolTurn, TurnLatency } from "./frames";
import { isCancel } from "./llm";
import { type Clock, Stage } from "./pipeline";
import { InputUtterance, type OpenSpeech, type Speech } from "./tts-input";

/** OpenAI's (and our adapters') `pcm`: 16-bit mono at 24 kHz. */
export const TTS_PCM_RATE = 24_000;

/** One chunk's speech, metered, as 24 kHz PCM bytes to `onAudio` as it is made; rejects on failure or cancel. */
export type Synthesize = (text: string, onAudio: (bytes: Uint8Array) => void, signal: AbortSignal) => Promise<unknown>;

interface Speaking {
  reply: number;
  utterance: Speech;
  /** Input streaming: every piece goes in as it comes; otherwise a chunk's pieces wait for its end. */
  input: boolean;
  /** The chunk being written (its pieces so far) and the tool turns said in its place. */
  pieces: string[];
  pieceTools: ToolTurn[];
  /** The LLM's share of the latency, known when the first text goes to speech. */
  llmMs: number | null;
  /** Of it, knowledge retrieval's (an agent that retrieves on every turn). */
  retrieval?: ReplyRetrieval;
  cancel: AbortController;
  /** The tool turns said in the place of the chunk whose audio starts next. */
  tools: ToolTurn[];
}

export class TtsStage extends Stage {
  readonly name = "tts";
  private current: Speaking | null = null;
  /** Speculative replies' frames, held until their commit (nothing is synthesized before: speech costs). */
  private readonly held = new Map<number, Frame[]>();
  /** When each committed speculative reply's turn ended: its latency counts from there. */
  private readonly commits = new Map<number, number>();
  private readonly discarded = new Set<number>();

  constructor(
    private readonly synthesize: Synthesize,
    /** The transport's sample rate. */
    private readonly rate: number,
    private readonly clock: Clock,
    /** A voice that takes text as it is written: a session per reply instead of a request per chunk. */
    private readonly openSpeech: OpenSpeech | null = null,
  ) {
    super();
  }

  process(frame: Frame, _direction: Direction): boolean {
    if ((frame.type === "llm-text" || frame.type === "llm-done") && this.discarded.has(frame.reply)) {
      if (frame.type === "llm-done") this.push({ type: "speech-done", reply: frame.reply, after: frame.after, tools: [], cut: true });
      return true;
    }
    if ((frame.type === "llm-text" || frame.type === "llm-done") && this.held.has(frame.reply)) {
      this.held.get(frame.reply)?.push(frame);
      return true;
    }
    switch (frame.type) {
      case "reply":
        if (frame.speculative) this.held.set(frame.reply, []);
        return true;
      case "commit": {
        const frames = this.held.get(frame.reply) ?? [];
        this.held.delete(frame.reply);
        this.commits.set(frame.reply, frame.at);
        for (const f of frames) this.process(f, "down");
        return true;
      }
      case "discard":
        this.held.delete(frame.reply);
        this.discarded.add(frame.reply);
        return true;
      case "say": {
        const s = this.start(frame.reply, null, frame.prepared);
        const chunker = new SentenceChunker();
        const chunks = frame.prepared ? [frame.text] : [...chunker.push(frame.text), ...chunker.flush()];
        for (const text of chunks) s.utterance.add(text);
        void this.track(this.finish(s, { ended: false, transfer: null }, []));
        return true;
      }
      case "llm-text": {
        const s = this.current?.reply === frame.reply ? this.current : this.start(frame.reply, this.timingOf(frame));
        this.speak(s, frame);
        return true;
      }
      case "llm-done": {
        // A reply with no words still ends here: its decisions (end, transfer) and tools go on down.
        const s = this.current?.reply === frame.reply ? this.current : this.start(frame.reply, null);
        void this.track(this.finish(s, frame.after, frame.tools));
        return true;
      }
      case "interruption":
        if (this.current?.reply === frame.reply) this.current.cancel.abort();
        return true;
      case "end":
        this.current?.cancel.abort();
        return true;
      default:
        return false;
    }
  }

  /** A committed speculative reply: its turn ended at the commit, so that is its endpointing. */
  private timingOf(frame: Extract<Frame, { type: "llm-text" }>): ReplyTiming | null {
    const at = this.commits.get(frame.reply);
    if (at === undefined || !frame.timing) return frame.timing;
    return { ...frame.timing, endpointingMs: Math.max(0, at - frame.timing.speechEndAt) };
  }

  /**
   * The LLM's time to the text that went to speech first (cut at `at`): with input streaming its
   * first piece, otherwise its first whole chunk; of a committed speculative reply only what was
   * left after the commit.
   */
  private llmMsAt(frame: FrameOf<"llm-text">): number {
    const commit = this.commits.get(frame.reply);
    return commit === undefined ? frame.llmMs + (frame.at - frame.firstAt) : Math.max(0, frame.at - commit);
  }

  /** A piece of the reply: into the session at once (input streaming), or kept until its chunk is complete. */
  private speak(s: Speaking, frame: FrameOf<"llm-text">): void {
    s.pieces.push(frame.text);
    s.pieceTools.push(...frame.tools);
    if (frame.partial && !s.input) return;
    const text = s.pieces.filter(Boolean).join(" ");
    s.pieces = [];
    if (!text) return; // a chunk's empty end: its words went in already (its tool turns wait for the next words)
    const tools = s.pieceTools;
    s.pieceTools = [];
    s.llmMs ??= this.llmMsAt(frame);
    s.retrieval ??= frame.retrieval;
    s.utterance.add(text, tools.length ? () => (s.tools = tools) : undefined);
  }

  private start(reply: number, timing: ReplyTiming | null, prepared?: Uint8Array): Speaking {
    const cancel = new AbortController();
    const send = (samples: Int16Array) =>
      this.push({ type: "audio-out", reply, samples, at: this.clock.now(), playhead: utterance.playhead });
    const common = { send, fromRate: TTS_PCM_RATE, rate: this.rate, signal: cancel.signal, now: () => this.clock.now() };
    const open = prepared ? undefined : (this.openSpeech ?? undefined);
    const utterance: Speech = open
      ? new InputUtterance({ open, ...common })
      : new Utterance({ synthesize: prepared ? async (_text, onAudio) => onAudio(prepared) : this.synthesize, ...common });
    const s: Speaking = { reply, utterance, input: open !== undefined, pieces: [], pieceTools: [], llmMs: null, cancel, tools: [] };
    utterance.onFirstAudio = () => {
      const first = utterance.firstAudio as { at: number; ttsMs: number };
      this.push({ type: "first-audio", reply, at: first.at, latency: timing ? latencyOf(timing, s.llmMs ?? 0, first, s.retrieval) : null });
    };
    utterance.onChunkStart = (text) => {
      const startAt = utterance.timeline.at(-1)?.startAt ?? this.clock.now();
      this.push({ type: "chunk-started", reply, text, startAt, tools: s.tools });
      s.tools = [];
    };
    this.current = s;
    return s;
  }

  /** Waits for every chunk's audio to be sent, then says so (`cut`: it stopped early). */
  private async finish(s: Speaking, after: AfterReply, tools: ToolTurn[]): Promise<void> {
    s.utterance.end();
    let cut = false;
    try {
      await s.utterance.done;
    } catch (error) {
      cut = true;
      if (!isCancel(error) && !s.cancel.signal.aborted) {
        s.cancel.abort();
        this.push({ type: "error", stage: "tts", error });
      }
    }
    if (this.current === s) this.current = null;
    this.push({ type: "speech-done", reply: s.reply, after, tools, cut: cut || s.cancel.signal.aborted });
  }
}

function latencyOf(timing: ReplyTiming, llmMs: number, first: { at: number; ttsMs: number }, retrieval?: ReplyRetrieval): TurnLatency {
  const voiceToVoiceMs = first.at - timing.speechEndAt;
  const { endpointingMs, sttMs } = timing;
  return {
    voiceToVoiceMs,
    endpointingMs,
    sttMs,
    llmMs,
    ttsMs: first.ttsMs,
    platformMs: voiceToVoiceMs - (endpointingMs + sttMs + llmMs + first.ttsMs),
    discardedTranscriptions: timing.discarded,
    // Waited before the first round (a speculative reply's: partly before its commit, whose wait llmMs counts from).
    ...(retrieval && { retrievalMs: Math.min(retrieval.waitMs, llmMs), retrievalPrefetched: retrieval.prefetched }),
  };
}
