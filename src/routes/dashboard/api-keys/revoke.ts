import type { OpenAPIHono } from "@hono/zod-openapi";
import { revokeApiKey } from "../../../api-keys/service";
import type { AppEnv } from "../../../context";
import { apiErrorFields } from "../../../dashboard/forms";
import { ApiError } from "../../../lib/errors";
import { isUuid } from "../../../lib/ids";
import { redisFor } from "../../../lib/redis";
import { render } from "./shared";

/** POST /dashboard/api-keys/:id/revoke. */
export const registerRevokeApiKeyPage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/:id/revoke", async (c) => {
    const id = c.req.param("id");
    if (!isUuid(id)) throw new ApiError("not_found", "No API key with that id in this workspace.");
    try {
      const key = await revokeApiKey({ ctx: { ...c.var.ctx, redis: redisFor(c.var.config) }, input: { id } });
      return render(c, { notice: `Key "${key.name}" revoked.` });
    } catch (err) {
      if (err instanceof ApiError && err.code === "conflict") return render(c, { errors: apiErrorFields(err) }, 400);
      throw err;
    }
  });
