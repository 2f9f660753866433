// The Deepgram adapter's own way of opening its socket, as the worker runs it: inside workerd
// (Miniflare), a fetch with `Upgrade: websocket` to the provider sandbox, `accept()`, Deepgram's
// messages, CloseStream. The other Deepgram tests inject a Node connector; this one runs the default.
import { build } from "esbuild";
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ProviderSandbox, startProviderSandbox } from "../../../dev/sandbox/openai";
import { resample16 } from "../../../dev/sandbox/wav";

let sandbox: ProviderSandbox;
let mf: Miniflare;

beforeAll(async () => {
  sandbox = await startProviderSandbox({ latency: "instant" });
  const bundle = await build({
    entryPoints: [new URL("./deepgram-worker.ts", import.meta.url).pathname],
    bundle: true,
    format: "esm",
    platform: "neutral",
    write: false,
  });
  mf = new Miniflare({
    modules: true,
    script: bundle.outputFiles[0]?.text ?? "",
    compatibilityDate: "2026-04-01",
    compatibilityFlags: ["nodejs_compat"],
    bindings: { DEEPGRAM_BASE_URL: sandbox.deepgram.url, DEEPGRAM_API_KEY: sandbox.deepgram.apiKey },
  });
}, 60_000);
afterAll(async () => {
  await mf?.dispose();
  await sandbox?.stop();
});

const SENTENCE = "Hi, I would like to book an appointment.";

async function speech(): Promise<Buffer> {
  const res = await fetch(`${sandbox.url}/audio/speech`, {
    method: "POST",
    headers: { authorization: `Bearer ${sandbox.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "tts-1", voice: "nova", input: SENTENCE, response_format: "pcm" }),
  });
  return Buffer.concat([resample16(Buffer.from(await res.arrayBuffer()), 24_000, 16_000), Buffer.alloc(16_000 * 2)]);
}

describe("Deepgram adapter in workerd (Workers' fetch upgrade)", () => {
  it("streams Nova and Flux through the socket it opened itself, and reports a refused key as open's error", async () => {
    const body = await speech();
    const run = async (query: string) =>
      (await (await mf.dispatchFetch(`http://worker/${query}`, { method: "POST", body })).json()) as {
        events?: Array<{ type: string; text?: string; speechFinal?: boolean }>;
        seconds?: number;
        closed?: boolean;
        error?: { name: string; failure: string; status: number; message: string };
      };
    const nova = await run("");
    expect(nova.error).toBeUndefined();
    expect(nova.events?.filter((e) => e.type === "final")).toEqual([{ type: "final", text: SENTENCE, speechFinal: true }]);
    expect(nova.seconds).toBeCloseTo(body.length / 2 / 16_000, 2);
    expect(nova.closed).toBe(true);

    const flux = await run("?model=flux-general-en");
    expect(flux.events?.filter((e) => e.type !== "update").map((e) => e.type)).toEqual([
      "start-of-turn",
      "eager-end-of-turn",
      "end-of-turn",
    ]);
    expect(flux.events?.at(-1)).toMatchObject({ type: "end-of-turn", text: SENTENCE });

    const refused = await run("?key=dg_wrong");
    expect(refused.error).toMatchObject({ name: "ProviderError", failure: "rejected", status: 401 });
  }, 30_000);
});
