import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { deleteWidget } from "../../../widgets/service";
import { own } from "./shared";

/** POST /dashboard/widgets/:id/delete. */
export const registerDeleteWidgetPage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/:id/delete", async (c) => {
    const widget = await own(c, c.req.param("id"));
    await deleteWidget({ ctx: c.var.ctx, input: { id: widget.id } });
    return c.redirect("/dashboard/widgets?deleted=1", 303);
  });
