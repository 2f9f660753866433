import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { SAMPLE_FORMAT, voiceSample } from "../../../voices/samples";
import { VOICE_SAMPLE_TEXT } from "../../../voices/schema";
import { getVoice } from "../../../voices/service";
import { synthesizeAudio } from "../../v1/models/shared";

/**
 * GET /dashboard/voices/:id/sample: the voice saying VOICE_SAMPLE_TEXT (WAV). The first play is
 * synthesized like the Models API's text to speech and metered to the workspace the same way (a
 * few dozen characters); it is then kept (src/voices/samples.ts) and later plays cost nothing
 * until the voice changes (`X-Voice-Sample: cached` or `synthesized`). A system voice or one of the
 * workspace's own; anything else is the 404 page. No-store like every dashboard response: the
 * browser asks again, the server answers from what it kept.
 */
export const registerVoiceSamplePage = (app: OpenAPIHono<AppEnv>) =>
  app.get("/:id/sample", async (c) => {
    const ctx = c.var.ctx;
    const voice = await getVoice({ ctx, input: { id: c.req.param("id") } });
    const sample = await voiceSample({
      ctx: { ...ctx, samples: c.env.RECORDINGS },
      input: {
        voice,
        synthesize: async (model) =>
          (await synthesizeAudio(c, { text: VOICE_SAMPLE_TEXT, voice: voice.id, model, format: SAMPLE_FORMAT })).audio,
      },
    });
    return c.body(sample.audio, 200, {
      "content-type": "audio/wav",
      "x-voice-sample": sample.cached ? "cached" : "synthesized",
    });
  });
