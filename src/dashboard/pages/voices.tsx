/** @jsxImportSource hono/jsx */
// Voices: the system catalog (read-only) and the workspace's own (create, edit, delete), through
// the API's schemas and service (voices/service.ts: the one ownership rule, in the pages' words).
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../context";
import { ApiError, type ErrorCode } from "../../lib/errors";
import { createVoiceSchema, updateVoiceSchema, VOICE_GENDERS, VOICE_PROVIDERS } from "../../voices/schema";
import { createVoice, deleteVoice, getOwnedVoice, listVoicesByName, updateVoice, type Voice } from "../../voices/service";
import { type Form, one, validate } from "./forms";
import { Csrf, ErrorSummary, type FieldErrors, Flash, Layout, Select, shellOf, TextArea, TextField } from "./ui";

const FIELDS = ["name", "provider", "providerVoiceId", "language", "gender", "previewUrl", "description"] as const;
type Values = Record<(typeof FIELDS)[number], string>;

const valuesOf = (v: Voice | null): Values => ({
  name: v?.name ?? "",
  provider: v?.provider ?? "openai",
  providerVoiceId: v?.providerVoiceId ?? "",
  language: v?.language ?? "en-US",
  gender: v?.gender ?? "",
  previewUrl: v?.previewUrl ?? "",
  description: v?.description ?? "",
});
const typed = (form: Form) => Object.fromEntries(FIELDS.map((k) => [k, one(form, k)])) as Values;
const inputOf = (v: Values) => ({
  ...v,
  gender: v.gender === "" ? null : v.gender,
  previewUrl: v.previewUrl === "" ? null : v.previewUrl,
  description: v.description === "" ? null : v.description,
});

async function renderForm(
  c: Context<AppEnv>,
  voice: Voice | null,
  values: Values,
  errors: FieldErrors = {},
  status: 200 | 400 = 200,
  notice?: string,
) {
  const shell = await shellOf(c, voice ? `Voice: ${voice.name}` : "New voice", "voices");
  return c.html(
    <Layout shell={shell}>
      {notice ? <Flash>{notice}</Flash> : null}
      <ErrorSummary errors={errors} />
      <form method="post" action={voice ? `/dashboard/voices/${voice.id}` : "/dashboard/voices"} class="card" novalidate>
        <Csrf token={shell.csrf} />
        <div class="grid2">
          <TextField name="name" label="Name" value={values.name} errors={errors} required />
          <Select
            name="provider"
            label="Provider"
            value={values.provider}
            options={VOICE_PROVIDERS.map((p) => ({ value: p, label: p }))}
            errors={errors}
          />
          <TextField name="providerVoiceId" label="Provider voice id" value={values.providerVoiceId} errors={errors} required />
          <TextField name="language" label="Language" value={values.language} errors={errors} hint="BCP 47, e.g. en-US" />
          <Select
            name="gender"
            label="Gender"
            value={values.gender}
            options={[{ value: "", label: "Not set" }, ...VOICE_GENDERS.map((g) => ({ value: g, label: g }))]}
            errors={errors}
          />
          <TextField name="previewUrl" label="Preview URL" type="url" value={values.previewUrl} errors={errors} />
        </div>
        <TextArea name="description" label="Description" value={values.description} errors={errors} rows={2} />
        <p class="row">
          <button type="submit">{voice ? "Save voice" : "Create voice"}</button>
          <a class="button secondary" href="/dashboard/voices">
            Cancel
          </a>
        </p>
      </form>
      {voice ? (
        <form method="post" action={`/dashboard/voices/${voice.id}/delete`} data-confirm={`Delete the voice "${voice.name}"?`} class="card">
          <Csrf token={shell.csrf} />
          <button type="submit" class="danger">
            Delete voice
          </button>
        </form>
      ) : null}
    </Layout>,
    status,
  );
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
const ownVoice = (c: Context<AppEnv>, id: string): Promise<Voice> => inPageWords(getOwnedVoice(c.var.db, c.var.auth.organizationId, id));

export function registerVoicePages(app: OpenAPIHono<AppEnv>): void {
  app.get("/dashboard/voices", async (c) => {
    const shell = await shellOf(c, "Voices", "voices");
    const rows = await listVoicesByName(c.var.db, c.var.auth.organizationId);
    const owned = rows.filter((v) => v.organizationId !== null);
    const system = rows.filter((v) => v.organizationId === null);
    const table = (list: Voice[], editable: boolean) => (
      <div class="card table-wrap" tabindex={0}>
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Provider</th>
              <th scope="col">Provider voice id</th>
              <th scope="col">Language</th>
              <th scope="col">Description</th>
            </tr>
          </thead>
          <tbody>
            {list.map((v) => (
              <tr>
                <td>{editable ? <a href={`/dashboard/voices/${v.id}`}>{v.name}</a> : v.name}</td>
                <td>{v.provider}</td>
                <td class="mono">{v.providerVoiceId}</td>
                <td>{v.language}</td>
                <td class="small">{v.description}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    );
    return c.html(
      <Layout
        shell={shell}
        actions={
          <a class="button" href="/dashboard/voices/new">
            New voice
          </a>
        }
      >
        {c.req.query("deleted") ? <Flash>Voice deleted.</Flash> : null}
        <h2>This workspace's voices</h2>
        {owned.length ? table(owned, true) : <p class="muted">None yet: agents use system voices.</p>}
        <h2>System voices</h2>
        {table(system, false)}
      </Layout>,
    );
  });

  app.get("/dashboard/voices/new", (c) => renderForm(c, null, valuesOf(null)));

  app.post("/dashboard/voices", async (c) => {
    const values = typed(c.var.form);
    const checked = validate(createVoiceSchema, inputOf(values));
    if (!checked.ok) return renderForm(c, null, values, checked.errors, 400);
    const row = await createVoice(c.var.db, c.var.auth.organizationId, checked.data);
    return c.redirect(`/dashboard/voices/${row.id}?saved=1`, 303);
  });

  app.get("/dashboard/voices/:id", async (c) => {
    const voice = await ownVoice(c, c.req.param("id"));
    return renderForm(c, voice, valuesOf(voice), {}, 200, c.req.query("saved") ? "Voice saved." : undefined);
  });

  app.post("/dashboard/voices/:id", async (c) => {
    const voice = await ownVoice(c, c.req.param("id"));
    const values = typed(c.var.form);
    const checked = validate(updateVoiceSchema, inputOf(values));
    if (!checked.ok) return renderForm(c, voice, values, checked.errors, 400);
    await inPageWords(updateVoice(c.var.db, c.var.auth.organizationId, voice.id, checked.data));
    return c.redirect(`/dashboard/voices/${voice.id}?saved=1`, 303);
  });

  app.post("/dashboard/voices/:id/delete", async (c) => {
    await inPageWords(deleteVoice(c.var.db, c.var.auth.organizationId, c.req.param("id")));
    return c.redirect("/dashboard/voices?deleted=1", 303);
  });
}
