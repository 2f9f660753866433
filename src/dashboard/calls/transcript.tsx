/** @jsxImportSource hono/jsx */
// A call's transcript on its page: the turns in the order they were spoken, the call's median
// voice-to-voice at the top, and under each agent reply that carries a latency trace
// (docs/calls.md, "Latency") a waterfall of where the caller's wait went: endpointing,
// transcription, LLM, speech and platform, laid end to end on one scale for the whole call (its
// slowest reply fills the width), with the voice-to-voice total at the end. The bars are an SVG
// in percent lengths drawn here (no style attribute, so the page's CSP holds; colours in
// ui/assets/calls.css) and hidden from screen readers; the list under them says each part's
// milliseconds in words, for everyone.
import type { FC } from "hono/jsx";
import type { CallView } from "../../calls/mapper";
import type { TranscriptTurn } from "../../db/schema";
import { clock, ToolOutcome } from "../ui";

export type TurnLatency = NonNullable<TranscriptTurn["latency"]>;
type Turn = CallView["transcript"]["turns"][number];

/** The parts of voice-to-voice, in the order they happen; `endpointingMs` is absent from some traces. */
const PARTS: ReadonlyArray<{ key: string; label: string; ms: (l: TurnLatency) => number | undefined }> = [
  { key: "endpointing", label: "Endpointing", ms: (l) => l.endpointingMs },
  { key: "stt", label: "Transcription", ms: (l) => l.sttMs },
  { key: "llm", label: "LLM", ms: (l) => l.llmMs },
  { key: "tts", label: "Speech", ms: (l) => l.ttsMs },
  { key: "platform", label: "Platform", ms: (l) => l.platformMs },
];

/** A bar this share of the scale or wider has its milliseconds written inside it too. */
const LABEL_MIN_SHARE = 0.12;
const BAR_HEIGHT = 18;

/** A stored number, whole (a jsonb column: anything but a finite positive number is 0). */
const whole = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) && v > 0 ? Math.round(v) : 0);
const pct = (share: number) => `${(share * 100).toFixed(3)}%`;

function partsOf(l: TurnLatency) {
  return PARTS.flatMap((p) => {
    const ms = p.ms(l);
    return ms === undefined ? [] : [{ key: p.key, label: p.label, ms: whole(ms) }];
  });
}

/** The call's scale: its slowest reply, total or sum of parts, whichever is larger (at least 1 ms). */
export function latencyScaleMs(turns: ReadonlyArray<{ latency?: TurnLatency }>): number {
  return Math.max(
    1,
    ...turns.map((t) =>
      t.latency
        ? Math.max(
            whole(t.latency.voiceToVoiceMs),
            partsOf(t.latency).reduce((n, p) => n + p.ms, 0),
          )
        : 0,
    ),
  );
}

/** One reply's waterfall on the call's scale (`scaleMs`, from latencyScaleMs). */
export const LatencyWaterfall: FC<{ latency: TurnLatency; scaleMs: number }> = ({ latency, scaleMs }) => {
  const parts = partsOf(latency);
  const discarded = whole(latency.discardedTranscriptions);
  let at = 0;
  const bars = parts.map((p) => {
    const x = at / scaleMs;
    const share = p.ms / scaleMs;
    at += p.ms;
    return share > 0 ? (
      <svg class={`wf-${p.key}`} x={pct(x)} width={pct(share)} height={BAR_HEIGHT}>
        <title>{`${p.label} ${p.ms} ms`}</title>
        <rect width="100%" height="100%" />
        {share >= LABEL_MIN_SHARE ? (
          <text x="4" y="13">
            {p.ms}
          </text>
        ) : null}
      </svg>
    ) : null;
  });
  return (
    <div class="waterfall">
      <div class="wf-row">
        <svg class="wf-bars" width="100%" height={BAR_HEIGHT} aria-hidden="true" focusable="false">
          {bars}
        </svg>
        <span class="wf-total">
          <span class="sr">Voice to voice </span>
          {whole(latency.voiceToVoiceMs)} ms
        </span>
      </div>
      <ul class="wf-parts" aria-label="Where the wait went">
        {parts.map((p) => (
          <li>
            <span class={`wf-swatch wf-${p.key}`} aria-hidden="true" />
            {p.label} {p.ms} ms
          </li>
        ))}
        {discarded > 0 ? (
          <li>
            {discarded} speculative transcription{discarded === 1 ? "" : "s"} discarded
          </li>
        ) : null}
      </ul>
    </div>
  );
};

const roleOf = (t: Turn) => (t.role === "agent" ? "Agent" : t.role === "tool" ? "Tool" : "Caller");

/** A moment of the call as m:ss from its start. */
export const offset = (ms: number) => {
  const s = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
};

/**
 * The transcript card: `latency` is the call view's summary (null when no reply was measured).
 * Each turn shows when it was said (from the call's start, and the clock in UTC); with a
 * recording, that time is a button that plays the recording from there (the page's script).
 */
export const Transcript: FC<{
  transcript: CallView["transcript"];
  latency: CallView["latency"];
  startedAt: Date | null;
  playable: boolean;
}> = ({ transcript, latency, startedAt, playable }) => {
  const scaleMs = latencyScaleMs(transcript.turns);
  return (
    <div class="card">
      {latency ? (
        <p class="latency-p50 small">
          <strong>Voice to voice</strong> p50 {latency.voiceToVoiceMsP50} ms over {latency.turns} repl{latency.turns === 1 ? "y" : "ies"}{" "}
          <span class="muted">
            (from the end of the caller's speech to the reply's first audio; under each reply, where that wait went)
          </span>
        </p>
      ) : null}
      {transcript.turns.length === 0 ? (
        <p class="muted" data-turns-empty>
          Nothing was said.
        </p>
      ) : (
        <ol class="turns" data-turns>
          {transcript.turns.map((t) => (
            <li data-start={(t.startMs / 1000).toFixed(2)} data-end={(t.endMs / 1000).toFixed(2)}>
              <span class="role">{roleOf(t)}</span>
              {playable ? (
                <button
                  type="button"
                  class="link small"
                  data-seek={(t.startMs / 1000).toFixed(2)}
                  aria-label={`Play from ${offset(t.startMs)}`}
                >
                  {offset(t.startMs)}
                </button>
              ) : (
                <span class="muted small">{offset(t.startMs)}</span>
              )}
              {startedAt ? (
                <time class="muted small" datetime={new Date(startedAt.getTime() + t.startMs).toISOString()}>
                  {" "}
                  {clock(new Date(startedAt.getTime() + t.startMs))}
                </time>
              ) : null}{" "}
              {t.text}
              {t.interrupted ? <span class="badge off"> interrupted</span> : null}
              {t.tool ? (
                <>
                  {" "}
                  <ToolOutcome tool={t.tool} />
                </>
              ) : null}
              {t.role === "agent" && t.latency ? <LatencyWaterfall latency={t.latency} scaleMs={scaleMs} /> : null}
            </li>
          ))}
        </ol>
      )}
    </div>
  );
};
