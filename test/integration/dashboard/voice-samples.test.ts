// Voices are playable from the dashboard: GET /dashboard/voices/:id/sample is the voice saying the
// sample sentence (WAV, through the provider sandbox's text to speech), metered to the workspace
// like the Models API's on its first play, then kept (later plays cost nothing: what the provider
// receives, tenancy and edits are in voices/sample-cache.test.ts); the Voices page and the agent
// form carry the players (fetched only when played). Another workspace's voice: the security table (404).
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { usageEvents } from "../../../src/db/schema";
import { VOICE_SAMPLE_TEXT } from "../../../src/voices/schema";
import { ALLOY_VOICE_ID } from "../../../src/voices/service";
import { createAgent } from "../../support/calls";
import { createWorkspace, request, settled, signIn, testDb } from "../../support/harness";
import { pagesAs } from "../../support/pages";

describe("voice samples", () => {
  it("plays a system voice's sample, metered on the first play only; the pages carry the players", async () => {
    const ws = await createWorkspace("Voice samples");
    const { cookie } = await signIn(ws.admin.email, ws.admin.password);
    const res = await request(`/dashboard/voices/${ALLOY_VOICE_ID}/sample`, { headers: { cookie } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("audio/wav");
    expect(res.headers.get("cache-control")).toBe("no-store"); // as every dashboard response
    const wav = new Uint8Array(await res.arrayBuffer());
    expect(new TextDecoder().decode(wav.slice(0, 4))).toBe("RIFF");
    expect(wav.length).toBeGreaterThan(10_000); // about three seconds of speech
    expect(res.headers.get("x-voice-sample")).toBe("synthesized");
    // Played again: the kept sample, the same audio, still no-store for the browser.
    const again = await request(`/dashboard/voices/${ALLOY_VOICE_ID}/sample`, { headers: { cookie } });
    expect(again.status).toBe(200);
    expect(again.headers.get("x-voice-sample")).toBe("cached");
    expect(again.headers.get("cache-control")).toBe("no-store");
    expect(new Uint8Array(await again.arrayBuffer())).toEqual(wav);
    await settled(ws.organizationId);
    const rows = await testDb()
      .select()
      .from(usageEvents)
      .where(
        and(eq(usageEvents.organizationId, ws.organizationId), eq(usageEvents.endpoint, `/dashboard/voices/${ALLOY_VOICE_ID}/sample`)),
      );
    expect(rows).toMatchObject([{ modality: "tts", unit: "characters", quantity: [...VOICE_SAMPLE_TEXT].length, status: 200 }]);

    const page = await pagesAs(ws.admin.email, ws.admin.password);
    const voices = (await page("/dashboard/voices")).html;
    expect(voices).toContain(
      `<audio class="voice-sample" controls="" preload="none" src="/dashboard/voices/${ALLOY_VOICE_ID}/sample" aria-label="Alloy: a sample">`,
    );
    const agent = await createAgent(ws, { voiceId: ALLOY_VOICE_ID });
    const form = (await page(`/dashboard/agents/${agent.id}`)).html;
    expect(form).toContain(
      `Hear <span data-voice-name="true">Alloy</span>: <audio class="voice-sample" controls="" preload="none" src="/dashboard/voices/${ALLOY_VOICE_ID}/sample"`,
    );
  });
});
