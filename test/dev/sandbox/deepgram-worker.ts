// A worker for test/dev/sandbox/deepgram-workers.test.ts: the Deepgram adapter with its default
// connector (Workers' fetch upgrade), inside workerd. POST raw 16 kHz PCM; the answer is the
// stream's events, the seconds close() reported, or the error open() threw.
import { Deepgram } from "../../../src/providers/deepgram";
import type { SttStreamEvent } from "../../../src/providers/types";

export default {
  async fetch(req: Request, env: { DEEPGRAM_BASE_URL: string; DEEPGRAM_API_KEY: string }): Promise<Response> {
    const url = new URL(req.url);
    const pcm = new Int16Array(await req.arrayBuffer());
    const events: SttStreamEvent[] = [];
    const deepgram = new Deepgram(env.DEEPGRAM_BASE_URL, url.searchParams.get("key") ?? env.DEEPGRAM_API_KEY, { timeoutMs: 10_000 });
    try {
      const stream = await deepgram.open(
        {
          model: url.searchParams.get("model") ?? "nova-3",
          sampleRate: 16_000,
          encoding: "linear16",
          endpointingMs: 300,
          eagerEotThreshold: 0.5,
        },
        (e) => events.push(e),
      );
      for (let at = 0; at < pcm.length; at += 320) stream.send(pcm.subarray(at, at + 320));
      const seconds = await stream.close();
      return Response.json({ events, seconds, closed: stream.closed });
    } catch (err) {
      const e = err as { name?: string; failure?: string; status?: number; message?: string };
      return Response.json({ error: { name: e.name, failure: e.failure, status: e.status, message: e.message } });
    }
  },
};
