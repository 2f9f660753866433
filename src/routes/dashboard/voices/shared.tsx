/** @jsxImportSource hono/jsx */
// What the voice pages share: the form page (new, edit, and a refused create or update), and the
// ownership lookup in the pages' words (the API's own rule: voices/service.ts).
import type { Context } from "hono";
import type { AppEnv } from "../../../context";
import { type FieldErrors, shellOf } from "../../../dashboard/ui";
import type { Values } from "../../../dashboard/voices/form";
import { VoiceForm } from "../../../dashboard/voices/views";
import { ApiError, type ErrorCode } from "../../../lib/errors";
import { getOwnedVoice, type Voice } from "../../../voices/service";

export async function renderForm(
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

export async function inPageWords<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    const message = err instanceof ApiError ? PAGE_MESSAGES[err.code] : undefined;
    throw message && err instanceof ApiError ? new ApiError(err.code, message) : err;
  }
}

/** An owned voice (editable); a system voice answers 409, another workspace's or a missing one 404. */
export const ownVoice = (c: Context<AppEnv>, id: string): Promise<Voice> => inPageWords(getOwnedVoice({ ctx: c.var.ctx, input: { id } }));
