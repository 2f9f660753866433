import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { validate } from "../../../dashboard/forms";
import { inputOf, typed } from "../../../dashboard/voices/form";
import { createVoiceSchema } from "../../../voices/schema";
import { createVoice } from "../../../voices/service";
import { renderForm } from "./shared";

/** POST /dashboard/voices: the new form sent, through the API's schema and service. */
export const registerCreateVoicePage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/", async (c) => {
    const values = typed(c.var.form);
    const checked = validate(createVoiceSchema, inputOf(values));
    if (!checked.ok) return renderForm(c, null, values, checked.errors, 400);
    const row = await createVoice({ ctx: c.var.ctx, input: checked.data });
    return c.redirect(`/dashboard/voices/${row.id}?saved=1`, 303);
  });
