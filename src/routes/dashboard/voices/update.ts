import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { validate } from "../../../dashboard/forms";
import { inputOf, typed } from "../../../dashboard/voices/form";
import { updateVoiceSchema } from "../../../voices/schema";
import { updateVoice } from "../../../voices/service";
import { inPageWords, ownVoice, renderForm } from "./shared";

/** POST /dashboard/voices/:id: the edit form sent, through the API's schema and service. */
export const registerUpdateVoicePage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/:id", async (c) => {
    const voice = await ownVoice(c, c.req.param("id"));
    const values = typed(c.var.form);
    const checked = validate(updateVoiceSchema, inputOf(values));
    if (!checked.ok) return renderForm(c, voice, values, checked.errors, 400);
    await inPageWords(updateVoice({ ctx: { ...c.var.ctx, samples: c.env.RECORDINGS }, input: { id: voice.id, patch: checked.data } }));
    return c.redirect(`/dashboard/voices/${voice.id}?saved=1`, 303);
  });
