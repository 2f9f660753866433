import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { VOICE_SAMPLE_TEXT } from "../../../voices/schema";
import { getVoice } from "../../../voices/service";
import { synthesize } from "../../v1/models/shared";

/**
 * GET /dashboard/voices/:id/sample: the voice saying VOICE_SAMPLE_TEXT (WAV), synthesized like the
 * Models API's text to speech and metered to the workspace the same way (a few dozen characters a
 * play: like every dashboard response it is no-store). A system voice or one of the workspace's
 * own; anything else is the 404 page.
 */
export const registerVoiceSamplePage = (app: OpenAPIHono<AppEnv>) =>
  app.get("/:id/sample", async (c) => {
    const voice = await getVoice({ ctx: c.var.ctx, input: { id: c.req.param("id") } });
    return synthesize(c, { text: VOICE_SAMPLE_TEXT, voice: voice.id, format: "wav" });
  });
