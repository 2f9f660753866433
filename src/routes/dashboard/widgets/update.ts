import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { apiErrorFields, validate } from "../../../dashboard/forms";
import { inputOf, onFields, typed } from "../../../dashboard/widgets/form";
import { updateWidgetSchema } from "../../../widgets/schema";
import { updateWidget } from "../../../widgets/service";
import { own, renderForm } from "./shared";

/** POST /dashboard/widgets/:id: the edit form sent, through the API's schema and service. */
export const registerUpdateWidgetPage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/:id", async (c) => {
    const widget = await own(c, c.req.param("id"));
    const checked = validate(updateWidgetSchema, inputOf(c.var.form));
    if (!checked.ok) return renderForm(c, widget, typed(c.var.form), onFields(checked.errors), 400);
    try {
      await updateWidget({ ctx: c.var.ctx, input: { ...checked.data, id: widget.id } });
      return c.redirect(`/dashboard/widgets/${widget.id}?saved=1`, 303);
    } catch (err) {
      return renderForm(c, widget, typed(c.var.form), apiErrorFields(err), 400);
    }
  });
