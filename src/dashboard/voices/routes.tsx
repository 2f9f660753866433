/** @jsxImportSource hono/jsx */
// Voices (everyone), under /dashboard/voices: the system catalog (read-only) and the workspace's
// own (create, edit, delete), through the API's schemas and service (voices/service.ts: the one
// ownership rule, in the pages' words).
import type { Context } from "hono";
import type { AppEnv } from "../../context";
import { ApiError, type ErrorCode } from "../../lib/errors";
import { createVoiceSchema, updateVoiceSchema } from "../../voices/schema";
import { createVoice, deleteVoice, getOwnedVoice, listVoicesByName, updateVoice, type Voice } from "../../voices/service";
import { validate } from "../forms";
import { screenRouter } from "../routers";
import { type FieldErrors, shellOf } from "../ui";
import { inputOf, typed, type Values, valuesOf } from "./form";
import { VoiceForm, VoiceList } from "./views";

async function renderForm(
  c: Context<AppEnv>,
  voice: Voice | null,
  values: Values,
  errors: FieldErrors = {},
  status: 200 | 400 = 200,
  notice?: string,
) {
  const shell = await shellOf(c, voice ? `Voice: ${voice.name}` : "New voice", "voices");
  return c.html(<VoiceForm shell={shell} voice={voice} values={values} errors={errors} notice={notice} />, status);
}

/**
 * The ownership rule's answers as the pages have always worded them: only owned voices have an
 * edit page, so a system voice is "cannot be changed" and anything else is not in this workspace.
 */
const PAGE_MESSAGES: Partial<Record<ErrorCode, string>> = {
  read_only: "System voices are shared by every workspace and cannot be changed.",
  not_found: "No voice with that id in this workspace.",
};

async function inPageWords<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    const message = err instanceof ApiError ? PAGE_MESSAGES[err.code] : undefined;
    throw message && err instanceof ApiError ? new ApiError(err.code, message) : err;
  }
}

/** An owned voice (editable); a system voice answers 409, another workspace's or a missing one 404. */
const ownVoice = (c: Context<AppEnv>, id: string): Promise<Voice> => inPageWords(getOwnedVoice({ ctx: c.var.ctx, input: { id } }));

export function voicePages() {
  const app = screenRouter();

  app.get("/", async (c) => {
    const shell = await shellOf(c, "Voices", "voices");
    const rows = await listVoicesByName({ ctx: c.var.ctx });
    const owned = rows.filter((v) => v.organizationId !== null);
    const system = rows.filter((v) => v.organizationId === null);
    return c.html(<VoiceList shell={shell} owned={owned} system={system} notice={c.req.query("deleted") ? "Voice deleted." : undefined} />);
  });

  app.get("/new", (c) => renderForm(c, null, valuesOf(null)));

  app.post("/", async (c) => {
    const values = typed(c.var.form);
    const checked = validate(createVoiceSchema, inputOf(values));
    if (!checked.ok) return renderForm(c, null, values, checked.errors, 400);
    const row = await createVoice({ ctx: c.var.ctx, input: checked.data });
    return c.redirect(`/dashboard/voices/${row.id}?saved=1`, 303);
  });

  app.get("/:id", async (c) => {
    const voice = await ownVoice(c, c.req.param("id"));
    return renderForm(c, voice, valuesOf(voice), {}, 200, c.req.query("saved") ? "Voice saved." : undefined);
  });

  app.post("/:id", async (c) => {
    const voice = await ownVoice(c, c.req.param("id"));
    const values = typed(c.var.form);
    const checked = validate(updateVoiceSchema, inputOf(values));
    if (!checked.ok) return renderForm(c, voice, values, checked.errors, 400);
    await inPageWords(updateVoice({ ctx: c.var.ctx, input: { id: voice.id, patch: checked.data } }));
    return c.redirect(`/dashboard/voices/${voice.id}?saved=1`, 303);
  });

  app.post("/:id/delete", async (c) => {
    await inPageWords(deleteVoice({ ctx: c.var.ctx, input: { id: c.req.param("id") } }));
    return c.redirect("/dashboard/voices?deleted=1", 303);
  });

  return app;
}
