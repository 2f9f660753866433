import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { apiErrorFields, validate } from "../../../dashboard/forms";
import { inputOf, onFields, typed } from "../../../dashboard/widgets/form";
import { createWidgetSchema } from "../../../widgets/schema";
import { createWidget } from "../../../widgets/service";
import { renderForm } from "./shared";

/** POST /dashboard/widgets: the new form sent, through the API's schema and service. */
export const registerCreateWidgetPage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/", async (c) => {
    const checked = validate(createWidgetSchema, inputOf(c.var.form));
    if (!checked.ok) return renderForm(c, null, typed(c.var.form), onFields(checked.errors), 400);
    try {
      const row = await createWidget({ ctx: c.var.ctx, input: checked.data });
      return c.redirect(`/dashboard/widgets/${row.id}?saved=1`, 303);
    } catch (err) {
      return renderForm(c, null, typed(c.var.form), apiErrorFields(err), 400);
    }
  });
