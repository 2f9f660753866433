import type { OpenAPIHono } from "@hono/zod-openapi";
import { getCallRecording } from "../../../calls/service";
import type { AppEnv } from "../../../context";
import { ApiError } from "../../../lib/errors";

/** GET /dashboard/calls/:id/recording: the call's WAV, for the page's player. */
export const registerCallRecordingPage = (app: OpenAPIHono<AppEnv>) =>
  app.get("/:id/recording", async (c) => {
    const object = await getCallRecording({ ctx: { ...c.var.ctx, recordings: c.env.RECORDINGS }, input: { id: c.req.param("id") } });
    if (!object) throw new ApiError("not_found", "This call has no recording.");
    return c.body(object.body, 200, {
      "content-type": "audio/wav",
      "content-length": String(object.size),
      "cache-control": "private, no-store",
    });
  });
