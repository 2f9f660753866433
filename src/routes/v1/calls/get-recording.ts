import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { getCallRecording } from "../../../calls/service";
import type { AppEnv } from "../../../context";
import { ApiError } from "../../../lib/errors";
import { bearerSecurity, errorResponses, idParam } from "../../../lib/openapi";

export const getRecordingRoute = createRoute({
  method: "get",
  path: "/calls/{id}/recording",
  tags: ["Calls"],
  operationId: "getCallRecording",
  summary: "The call's recording: a stereo WAV (left the caller, right the agent)",
  security: bearerSecurity,
  request: { params: idParam("Call") },
  responses: {
    200: { description: "audio/wav", content: { "audio/wav": { schema: { type: "string", format: "binary" } } } },
    ...errorResponses(400, 404),
  },
});

export const registerGetCallRecording = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(getRecordingRoute, async (c) => {
    const object = await getCallRecording({ ctx: { ...c.var.ctx, recordings: c.env.RECORDINGS }, input: { id: c.req.valid("param").id } });
    if (!object) throw new ApiError("not_found", "This call has no recording (yet).");
    return c.body(object.body, 200, { "content-type": "audio/wav", "content-length": String(object.size) });
  });
