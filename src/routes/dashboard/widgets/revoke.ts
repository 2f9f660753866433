import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { ApiError } from "../../../lib/errors";
import { revokeWidget } from "../../../widgets/service";
import { own } from "./shared";

/** POST /dashboard/widgets/:id/revoke: the token stops (revoking a revoked one changes nothing). */
export const registerRevokeWidgetPage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/:id/revoke", async (c) => {
    const widget = await own(c, c.req.param("id"));
    try {
      await revokeWidget({ ctx: c.var.ctx, input: { id: widget.id } });
    } catch (err) {
      if (!(err instanceof ApiError && err.code === "conflict")) throw err;
    }
    return c.redirect(`/dashboard/widgets/${widget.id}?revoked=1`, 303);
  });
