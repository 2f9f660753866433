// A call's transcript on its dashboard page (src/dashboard/calls/transcript.tsx): each agent reply
// with a latency trace gets a waterfall of its parts on the call's shared scale, with the
// milliseconds in words beside the bars; the call's p50 at the top; turns without a trace, and
// calls without any, render as before; what the turns hold is escaped.
import { jsx } from "hono/jsx";
import { describe, expect, it } from "vitest";
import type { CallView } from "../../../../src/calls/mapper";
import { LatencyWaterfall, latencyScaleMs, offset, Transcript, type TurnLatency } from "../../../../src/dashboard/calls/transcript";

const html = (node: unknown) => String(node);

const trace: TurnLatency = { voiceToVoiceMs: 1000, endpointingMs: 200, sttMs: 100, llmMs: 400, ttsMs: 250, platformMs: 50 };

/** The bars of a rendered waterfall (each titled with its part, for a pointer's tooltip): [part, x, width, inner label or null]. */
const bars = (out: string) =>
  [
    ...out.matchAll(
      /<svg class="wf-(\w+)" x="([\d.]+%)" width="([\d.]+%)" height="18"><title>[^<]*<\/title><rect[^>]*\/?>(?:<\/rect>)?(?:<text[^>]*>(\d+)<\/text>)?/g,
    ),
  ].map(([, part, x, width, label]) => [part, x, width, label ?? null]);
const words = (out: string) =>
  [...out.matchAll(/<li><span class="wf-swatch wf-\w+" aria-hidden="true"><\/span>([^<]*)<\/li>/g)].map(([, text]) => text);

type Turns = CallView["transcript"]["turns"];

describe("LatencyWaterfall", () => {
  it("lays the parts end to end on the shared scale, labels wide bars inside, says every part in words and ends with the total", () => {
    const out = html(jsx(LatencyWaterfall, { latency: trace, scaleMs: 2000 }));
    expect(bars(out)).toEqual([
      ["endpointing", "0.000%", "10.000%", null],
      ["stt", "10.000%", "5.000%", null],
      ["llm", "15.000%", "20.000%", "400"],
      ["tts", "35.000%", "12.500%", "250"],
      ["platform", "47.500%", "2.500%", null],
    ]);
    expect(words(out)).toEqual(["Endpointing 200 ms", "Transcription 100 ms", "LLM 400 ms", "Speech 250 ms", "Platform 50 ms"]);
    expect(out).toContain('<span class="wf-total"><span class="sr">Voice to voice </span>1000 ms</span>');
    // The picture is hidden from screen readers, the words are not; no style attribute (the page's CSP).
    expect(out).toContain('<svg class="wf-bars" width="100%" height="18" aria-hidden="true" focusable="false">');
    expect(out).toContain('<svg class="wf-llm" x="15.000%" width="20.000%" height="18"><title>LLM 400 ms</title>');
    expect(out).toContain('<ul class="wf-parts" aria-label="Where the wait went">');
    expect(out).not.toMatch(/\sstyle=/);
    expect(out.indexOf('class="wf-bars"')).toBeLessThan(out.indexOf('class="wf-total"'));
  });

  it("leaves out endpointing when the trace has none, draws no bar for 0 ms, and counts discarded transcriptions", () => {
    const { endpointingMs: _, ...rest } = trace;
    const out = html(jsx(LatencyWaterfall, { latency: { ...rest, platformMs: 0, discardedTranscriptions: 2 }, scaleMs: 1000 }));
    expect(bars(out).map(([part]) => part)).toEqual(["stt", "llm", "tts"]);
    expect(bars(out)[0]).toEqual(["stt", "0.000%", "10.000%", null]);
    expect(words(out)).toEqual(["Transcription 100 ms", "LLM 400 ms", "Speech 250 ms", "Platform 0 ms"]);
    expect(out).toContain("<li>2 speculative transcriptions discarded</li>");
    expect(html(jsx(LatencyWaterfall, { latency: { ...trace, discardedTranscriptions: 1 }, scaleMs: 1000 }))).toContain(
      "<li>1 speculative transcription discarded</li>",
    );
  });

  it("treats a stored value that is not a finite positive number as 0, and never echoes it", () => {
    const bad = { ...trace, llmMs: '"><script>alert(1)</script>' as unknown as number, ttsMs: Number.NaN, sttMs: -5 };
    const out = html(jsx(LatencyWaterfall, { latency: bad, scaleMs: 1000 }));
    expect(out).not.toContain("<script");
    expect(out).not.toContain("NaN");
    expect(words(out)).toEqual(["Endpointing 200 ms", "Transcription 0 ms", "LLM 0 ms", "Speech 0 ms", "Platform 50 ms"]);
  });
});

describe("latencyScaleMs", () => {
  it("is the slowest reply of the call, total or sum of its parts, and 1 ms when none was measured", () => {
    const turns: Array<{ latency?: TurnLatency }> = [
      { latency: trace },
      {},
      { latency: { ...trace, voiceToVoiceMs: 1500 } },
      { latency: { voiceToVoiceMs: 900, sttMs: 1000, llmMs: 700, ttsMs: 0, platformMs: 0 } },
    ];
    expect(latencyScaleMs(turns)).toBe(1700);
    expect(latencyScaleMs(turns.slice(0, 3))).toBe(1500);
    expect(latencyScaleMs([{}])).toBe(1);
  });
});

describe("Transcript", () => {
  const turns: Turns = [
    { role: "agent", text: "Hello, Acme Dental.", startMs: 0, endMs: 1500 },
    { role: "user", text: "<script>alert('x')</script> & <b>book</b>", startMs: 2000, endMs: 3500 },
    { role: "agent", text: "Sure <img src=x onerror=alert(1)>", startMs: 4500, endMs: 6000, latency: trace },
    { role: "user", text: "Tomorrow.", startMs: 7000, endMs: 7600 },
    {
      role: "agent",
      text: "Booked.",
      startMs: 8000,
      endMs: 9000,
      interrupted: true,
      latency: { ...trace, voiceToVoiceMs: 2000, llmMs: 1400 },
    },
  ];
  const view = { fullText: "", turns };

  it("shows the call's p50 and a waterfall under each measured reply only, on the slowest reply's scale", () => {
    const out = html(
      jsx(Transcript, {
        transcript: view,
        latency: { turns: 2, voiceToVoiceMsP50: 1500, platformMsP50: 50 },
        startedAt: null,
        playable: false,
      }),
    );
    expect(out).toMatch(/^<div class="card"><p class="latency-p50 small"><strong>Voice to voice<\/strong> p50 1500 ms over 2 replies /);
    const items = out.split(/<li[^>]*><span class="role">/).slice(1);
    expect(items.map((i) => i.includes('class="waterfall"'))).toEqual([false, false, true, false, true]);
    // Both replies on one scale: 2000 ms fills the width, 1000 ms half of it.
    expect(bars(items[2] as string).at(-1)).toEqual(["platform", "47.500%", "2.500%", null]);
    expect(bars(items[4] as string).at(-1)).toEqual(["platform", "97.500%", "2.500%", null]);
    expect(items[4]).toContain('<span class="badge off"> interrupted</span>');
    expect(items[4]).toContain('<span class="sr">Voice to voice </span>2000 ms');
  });

  it("escapes what was said", () => {
    const out = html(jsx(Transcript, { transcript: view, latency: null, startedAt: null, playable: false }));
    expect(out).not.toContain("<script>");
    expect(out).not.toContain("<img");
    expect(out).not.toContain("<b>");
    expect(out).toContain("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &lt;b&gt;book&lt;/b&gt;");
    expect(out).toContain("Sure &lt;img src=x onerror=alert(1)&gt;");
  });

  it("without a measured reply: no p50, no waterfall; a caller turn with a stray trace gets none either", () => {
    const plain: Turns = [
      { role: "agent", text: "Hello.", startMs: 0, endMs: 900 },
      { role: "user", text: "Hi.", startMs: 1000, endMs: 1400, latency: trace },
    ];
    const out = html(jsx(Transcript, { transcript: { fullText: "", turns: plain }, latency: null, startedAt: null, playable: false }));
    expect(out).not.toContain("latency-p50");
    expect(out).not.toContain("waterfall");
    expect(out).not.toContain("<svg");
    expect(out).toContain(
      '<li data-start="0.00" data-end="0.90"><span class="role">Agent</span><span class="muted small">0:00</span> Hello.</li>',
    );
    expect(html(jsx(Transcript, { transcript: { fullText: "", turns: [] }, latency: null, startedAt: null, playable: false }))).toBe(
      '<div class="card"><p class="muted" data-turns-empty="true">Nothing was said.</p></div>',
    );
  });

  it("with a recording, each turn's time plays it from there; with a start, the clock says when (UTC)", () => {
    const startedAt = new Date("2026-03-01T10:00:00.000Z");
    const out = html(jsx(Transcript, { transcript: view, latency: null, startedAt, playable: true }));
    expect(out).toContain(
      '<li data-start="7.00" data-end="7.60"><span class="role">Caller</span><button type="button" class="link small" data-seek="7.00" aria-label="Play from 0:07">0:07</button><time class="muted small" datetime="2026-03-01T10:00:07.000Z"> 10:00:07</time> Tomorrow.</li>',
    );
    expect(offset(125_400)).toBe("2:05");
  });

  it("says one reply in the singular", () => {
    const out = html(
      jsx(Transcript, {
        transcript: view,
        latency: { turns: 1, voiceToVoiceMsP50: 1000, platformMsP50: 50 },
        startedAt: null,
        playable: false,
      }),
    );
    expect(out).toContain("p50 1000 ms over 1 reply ");
  });
});
