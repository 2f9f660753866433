import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { rotateSecret } from "../../../webhooks/endpoints";
import { endpointId, renderEndpoint } from "./shared";

const ROTATED_WARNING =
  "Secret rotated: the old secret stopped validating. Copy the new one now: this is the only time it is shown in full.";

/** POST /dashboard/webhooks/:id/rotate-secret: the new secret, shown in this response only. */
export const registerRotateSecretPage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/:id/rotate-secret", async (c) => {
    const row = await rotateSecret({ ctx: c.var.ctx, input: { id: endpointId(c) } });
    c.header("Cache-Control", "no-store");
    return renderEndpoint(c, row, { secret: { value: row.secret, warning: ROTATED_WARNING } });
  });
