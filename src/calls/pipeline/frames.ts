// The typed frames a call's stages pass each other (docs/calls.md, "The voice pipeline"). Data
// frames travel down (caller → agent: transport in, turn detection, STT, context, LLM, TTS,
// transport out) or up (what was said back to the context, an early end of turn back to turn
// detection); system frames (interruption, hang-up, end) reach every stage at once.
import type { TranscriptTurn, TransferDestination } from "../../db/schema";
import type { ChatMessage } from "../../providers/types";
import type { TurnRecord } from "../../tools/runtime";
import type { EndedReason } from "../states";
import type { TurnEnd, TurnTaking } from "../turns";

export type ToolTurn = Extract<TurnRecord, { role: "tool" }>;
export type TurnLatency = NonNullable<TranscriptTurn["latency"]>;
export type PipelineStage = "stt" | "llm" | "tts";

/** What a reply's voice-to-voice latency is measured from (null for the first message and other known text). */
export interface ReplyTiming {
  speechEndAt: number;
  /** From the end of the caller's speech to the turn's end (the turn model's or the endpointing wait). */
  endpointingMs: number;
  /** From the turn's end to its transcript. */
  sttMs: number;
  /** Speculative transcriptions of the turn thrown away. */
  discarded: number;
}

/** What knowledge retrieval took of a reply (src/knowledge/retrieve.ts). */
export interface ReplyRetrieval {
  waitMs: number;
  prefetched: boolean;
}

/** What a finished reply asks for once it has played: the end of the call, a transfer, or keys to press (send_dtmf). */
export interface AfterReply {
  ended: boolean;
  transfer: TransferDestination | null;
  dtmf?: string | null;
}

export type DataFrame =
  // transport in
  /** `voiced`: set by turn detection: the frame is loud, within a stretch of speech. */
  | { type: "audio-in"; samples: Int16Array; at: number; voiced?: boolean }
  | { type: "mark"; name: string; at: number }
  /** A key the caller pressed on the phone's keypad (src/calls/keypad.ts). */
  | { type: "key"; digit: string; at: number }
  // keypad
  /** The caller began an entry on the keypad: like speech, it cuts the agent off. */
  | { type: "keys-pressed"; at: number }
  /** A whole keypad entry, a caller turn: its keys, when the first was pressed, and the wait from the last to its end. */
  | { type: "keypad"; digits: string; startAt: number; endAt: number; waitMs: number }
  // turn detection
  | { type: "speech-started"; at: number }
  | { type: "speech-paused"; pause: number; audio: Int16Array; speechStartAt: number; speechEndAt: number; at: number }
  | { type: "speech-resumed"; pause: number; at: number }
  | { type: "turn-ended"; end: TurnEnd; endedBy: TurnTaking["endedBy"] }
  /** Up, STT → turn detection: the pause's transcript ended a sentence; end the turn now if the caller is still in it. */
  | { type: "end-turn"; pause: number; at: number }
  // STT
  /** `speculative`: on an early end-of-turn signal (Flux's EagerEndOfTurn); a `turn-outcome` follows. */
  | { type: "transcript"; text: string; end: TurnEnd; turnTaking: TurnTaking; sttMs: number; speculative?: boolean }
  /**
   * The speculative transcript's fate: the turn ended with it (`at`: when; `transcript`: the turn's
   * final transcript, for a context that had not started a reply on it), or the caller went on.
   */
  | { type: "turn-outcome"; confirmed: boolean; at: number; transcript?: TranscriptFrame }
  // context
  | { type: "reply"; reply: number; messages: ChatMessage[]; timing: ReplyTiming | null; speculative?: boolean }
  /** A speculative reply may be heard (its tools may run): the turn ended at `at`. */
  | { type: "commit"; reply: number; at: number }
  /** A speculative reply is thrown away: nothing of it is spoken. */
  | { type: "discard"; reply: number }
  /** Known text to speak as the agent's turn (the first message; `prepared`: its 24 kHz PCM, made while ringing). */
  | { type: "say"; reply: number; text: string; prepared?: Uint8Array }
  /** Up, LLM → context: a tool round's calls and results, for the history. */
  | { type: "history"; messages: ChatMessage[] }
  // LLM
  /**
   * A piece of the reply to speak: a sentence-sized chunk, or with `partial` its words so far up to a
   * clause (the chunk goes on in the next piece; its last piece may be empty). `tools`: tool turns
   * that ran since the last words (they are said in their place); `llmMs`, `firstAt`: to the reply's
   * first piece; `at`: when this piece was cut.
   */
  | {
      type: "llm-text";
      reply: number;
      text: string;
      tools: ToolTurn[];
      llmMs: number;
      firstAt: number;
      at: number;
      timing: ReplyTiming | null;
      partial?: boolean;
      /** An agent that retrieves on every turn: the reply's wait for its passages, and whether a search made while the caller spoke had them. */
      retrieval?: ReplyRetrieval;
    }
  /** The reply is complete (or was cancelled); `tools`: tool turns after its last words. */
  | { type: "llm-done"; reply: number; after: AfterReply; tools: ToolTurn[] }
  // TTS
  | { type: "first-audio"; reply: number; at: number; latency: TurnLatency | null }
  | { type: "chunk-started"; reply: number; text: string; startAt: number; tools: ToolTurn[] }
  | { type: "audio-out"; reply: number; samples: Int16Array; at: number; playhead: number }
  /** Every chunk's audio was sent (`cut`: it stopped early: a barge-in or the call's end). */
  | { type: "speech-done"; reply: number; after: AfterReply; tools: ToolTurn[]; cut: boolean }
  // transport out, up to the context: what the caller heard
  | { type: "agent-started"; reply: number; at: number; latency: TurnLatency | null }
  | { type: "agent-words"; reply: number; text: string }
  /** Tool turns between two parts of one reply: the turn so far closes at `at`, the tools follow, the words go on in a new turn. */
  | { type: "agent-tools"; reply: number; at: number; tools: ToolTurn[] }
  | { type: "agent-sent"; reply: number; endsAt: number }
  /**
   * The reply was cut: `heard` is what the caller heard by `at`; `drop` when it is no turn at all;
   * `unheard`: on a barge-in, the words made and not heard (said again after a false interruption).
   */
  | { type: "agent-cut"; reply: number; heard: string; at: number; endAt: number; drop: boolean; notify: boolean; unheard?: string }
  | { type: "reply-done"; reply: number; tools: ToolTurn[] }
  /** Whether the agent's audio is playing on the caller's side (from its first audio to its mark, a cut or a hang-up). */
  | { type: "agent-speaking"; speaking: boolean; at: number }
  /** For the web page: call state and transcript lines. */
  | { type: "notify"; event: Record<string, unknown> }
  /** For the session: what the conversation decided. */
  | {
      type: "action";
      action: { kind: "end"; reason: EndedReason } | { kind: "hand-on"; to: TransferDestination } | { kind: "press"; digits: string };
    }
  | { type: "error"; stage: PipelineStage; error: unknown };

type TranscriptFrame = Extract<DataFrame, { type: "transcript" }>;

export type SystemFrame =
  /** The caller spoke over the agent: every stage drops the reply in progress. */
  | { type: "interruption"; reply: number; at: number }
  /** The caller hung up: what was playing keeps what they heard. */
  | { type: "hangup"; at: number }
  /** The call is ending: nothing more is made. */
  | { type: "end" };

export type Frame = DataFrame | SystemFrame;
export type FrameType = Frame["type"];
export type FrameOf<T extends FrameType> = Extract<Frame, { type: T }>;
export type Direction = "down" | "up";

export const SYSTEM_FRAMES: ReadonlySet<FrameType> = new Set(["interruption", "hangup", "end"]);
