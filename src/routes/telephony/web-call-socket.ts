import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { redeemWebCallToken } from "../../calls/place";
import type { AppEnv } from "../../context";
import { ApiError } from "../../lib/errors";
import { isUuid } from "../../lib/ids";
import { errorResponses, publicSecurity } from "../../lib/openapi";
import { callIdParam, requireUpgrade, switching, toSession } from "./shared";

export const webCallSocketRoute = createRoute({
  method: "get",
  path: "/web-calls/{callId}/socket",
  tags: ["Calls"],
  operationId: "webCallSocket",
  security: publicSecurity,
  summary: "The browser's web-call WebSocket (one-time token in the query; protocol in docs/calls.md)",
  request: { params: callIdParam, query: z.object({ token: z.string().optional() }) },
  responses: { ...switching, ...errorResponses(401, 426) },
});

export const registerWebCallSocket = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(webCallSocketRoute, async (c) => {
    requireUpgrade(c);
    const callId = c.req.param("callId");
    const token = c.req.query("token") ?? "";
    if (!isUuid(callId) || !token || !(await redeemWebCallToken(c.var.db, callId, token)))
      throw new ApiError("unauthorized", "This web-call token is not valid: it is wrong, expired or already used. Start a new web call.");
    return (await toSession(c, callId, "web")) as never;
  });
