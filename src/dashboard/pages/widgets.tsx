/** @jsxImportSource hono/jsx */
// Web widgets (issue 7's channels, created here for an agent): list, create, edit every field,
// the embed code with a copy button, rotate the token, revoke, delete. The same schemas and
// service functions as /v1/widgets.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../context";
import { ApiError } from "../../lib/errors";
import { isUuid } from "../../lib/ids";
import { cdnOrigin } from "../../routes/v1/widgets/shared";
import { embedCode } from "../../widgets/mapper";
import { createWidgetSchema, DEFAULT_COLORS, updateWidgetSchema, WIDGET_MODES, WIDGET_POSITIONS } from "../../widgets/schema";
import {
  createWidget,
  deleteWidget,
  getWidget,
  listWidgetAgents,
  listWidgets,
  revokeWidget,
  rotateWidgetToken,
  updateWidget,
  type Widget,
  widgetNotFound,
} from "../../widgets/service";
import { apiErrorFields, type Form, lines, one, validate } from "./forms";
import { Csrf, ErrorSummary, type FieldErrors, Flash, Layout, Select, shellOf, TextArea, TextField, When } from "./ui";

const FIELDS = [
  "agentId",
  "name",
  "mode",
  "allowedOrigins",
  "title",
  "greeting",
  "accent",
  "accentText",
  "background",
  "text",
  "position",
] as const;
type Values = Record<(typeof FIELDS)[number], string>;

const valuesOf = (w: Widget | null, firstAgent = ""): Values => ({
  agentId: w?.agentId ?? firstAgent,
  name: w?.name ?? "",
  mode: w?.mode ?? "chat",
  allowedOrigins: (w?.allowedOrigins ?? []).join("\n"),
  title: w?.title ?? "",
  greeting: w?.greeting ?? "",
  accent: w?.colors.accent ?? DEFAULT_COLORS.accent,
  accentText: w?.colors.accentText ?? DEFAULT_COLORS.accentText,
  background: w?.colors.background ?? DEFAULT_COLORS.background,
  text: w?.colors.text ?? DEFAULT_COLORS.text,
  position: w?.position ?? "bottom-right",
});
const typed = (form: Form) => Object.fromEntries(FIELDS.map((k) => [k, one(form, k)])) as Values;
const inputOf = (form: Form) => ({
  agentId: one(form, "agentId"),
  name: one(form, "name"),
  mode: one(form, "mode"),
  allowedOrigins: lines(form, "allowedOrigins"),
  title: one(form, "title").trim() === "" ? null : one(form, "title"),
  greeting: one(form, "greeting").trim() === "" ? null : one(form, "greeting"),
  colors: {
    accent: one(form, "accent"),
    accentText: one(form, "accentText"),
    background: one(form, "background"),
    text: one(form, "text"),
  },
  position: one(form, "position"),
});
/** colors.accent → accent, allowedOrigins.2 → allowedOrigins: errors on the field that shows them. */
const onFields = (errors: FieldErrors): FieldErrors => {
  const out: FieldErrors = {};
  for (const [path, message] of Object.entries(errors)) {
    const parts = path.split(".");
    const field = parts[0] === "colors" && parts[1] ? parts[1] : (parts[0] as string);
    out[field] ??= parts.length > 1 && parts[0] !== "colors" ? `line ${Number(parts[1]) + 1}: ${message}` : message;
  }
  return out;
};

async function agentChoices(c: Context<AppEnv>) {
  const rows = await listWidgetAgents(c.var.db, c.var.auth.organizationId);
  return rows.map((a) => ({ value: a.id, label: a.name }));
}

async function own(c: Context<AppEnv>, id: string): Promise<Widget> {
  const row = isUuid(id) ? await getWidget(c.var.db, c.var.auth.organizationId, id) : null;
  if (!row) throw widgetNotFound();
  return row;
}

async function renderForm(
  c: Context<AppEnv>,
  widget: Widget | null,
  values: Values,
  errors: FieldErrors = {},
  status: 200 | 400 = 200,
  notice?: string,
) {
  const shell = await shellOf(c, widget ? `Widget: ${widget.name}` : "New widget", "widgets");
  const choices = await agentChoices(c);
  return c.html(
    <Layout shell={shell}>
      {notice ? <Flash>{notice}</Flash> : null}
      {widget ? (
        <div class="card">
          <h2 class="mt0">Embed code</h2>
          <p class="hint">
            Paste this tag into each page on the allowed origins. The token is not an API key: it is safe in HTML and only reaches this
            widget.
          </p>
          <div class="secret">
            <code id="embed-code">{embedCode(cdnOrigin(c), widget.token)}</code>
            <button type="button" class="secondary" data-copy="embed-code">
              Copy
            </button>
          </div>
          <p>
            Status:{" "}
            {widget.revokedAt ? (
              <span class="badge bad">
                revoked <When at={widget.revokedAt} />
              </span>
            ) : (
              <span class="badge good">active</span>
            )}
            {widget.tokenRotatedAt ? (
              <span class="muted small">
                {" "}
                · token rotated <When at={widget.tokenRotatedAt} />
              </span>
            ) : null}
          </p>
          <div class="row">
            <form
              method="post"
              action={`/dashboard/widgets/${widget.id}/rotate-token`}
              data-confirm="Rotate the token? Pages with the old tag stop working until updated."
            >
              <Csrf token={shell.csrf} />
              <button type="submit" class="secondary">
                {widget.revokedAt ? "Reactivate with a new token" : "Rotate token"}
              </button>
            </form>
            {widget.revokedAt ? null : (
              <form
                method="post"
                action={`/dashboard/widgets/${widget.id}/revoke`}
                data-confirm="Revoke the token? The widget stops answering at once."
              >
                <Csrf token={shell.csrf} />
                <button type="submit" class="danger">
                  Revoke
                </button>
              </form>
            )}
          </div>
        </div>
      ) : null}
      <ErrorSummary errors={errors} />
      <form method="post" action={widget ? `/dashboard/widgets/${widget.id}` : "/dashboard/widgets"} class="card" novalidate>
        <Csrf token={shell.csrf} />
        <div class="grid2">
          <TextField name="name" label="Name" value={values.name} errors={errors} hint="For you; visitors never see it." required />
          <Select name="agentId" label="Agent" value={values.agentId} options={choices} errors={errors} />
          <Select
            name="mode"
            label="Mode"
            value={values.mode}
            options={WIDGET_MODES.map((m) => ({ value: m, label: m === "both" ? "chat and voice" : m }))}
            errors={errors}
          />
          <Select
            name="position"
            label="Position"
            value={values.position}
            options={WIDGET_POSITIONS.map((p) => ({ value: p, label: p }))}
            errors={errors}
          />
        </div>
        <TextArea
          name="allowedOrigins"
          label="Allowed origins (one per line)"
          value={values.allowedOrigins}
          errors={errors}
          rows={3}
          hint="e.g. https://www.example.com, https://*.example.com, http://localhost:3000"
        />
        <div class="grid2">
          <TextField name="title" label="Title (optional)" value={values.title} errors={errors} hint="Empty: the agent's name." />
          <TextField
            name="greeting"
            label="Greeting (optional)"
            value={values.greeting}
            errors={errors}
            hint="Empty: the agent's first message."
          />
          <TextField name="accent" label="Accent colour" value={values.accent} errors={errors} />
          <TextField name="accentText" label="Text on accent" value={values.accentText} errors={errors} />
          <TextField name="background" label="Background colour" value={values.background} errors={errors} />
          <TextField name="text" label="Text colour" value={values.text} errors={errors} />
        </div>
        <p class="row">
          <button type="submit" disabled={choices.length === 0}>
            {widget ? "Save widget" : "Create widget"}
          </button>
          <a class="button secondary" href="/dashboard/widgets">
            Cancel
          </a>
        </p>
        {choices.length === 0 ? <p class="muted">Create an agent first: a widget puts an agent on a website.</p> : null}
      </form>
      {widget ? (
        <form
          method="post"
          action={`/dashboard/widgets/${widget.id}/delete`}
          data-confirm={`Delete the widget "${widget.name}"?`}
          class="card"
        >
          <Csrf token={shell.csrf} />
          <button type="submit" class="danger">
            Delete widget
          </button>
        </form>
      ) : null}
    </Layout>,
    status,
  );
}

export function registerWidgetPages(app: OpenAPIHono<AppEnv>): void {
  app.get("/dashboard/widgets", async (c) => {
    const shell = await shellOf(c, "Widgets", "widgets");
    const page = await listWidgets(c.var.db, c.var.auth.organizationId, { limit: 100 });
    const names = new Map((await agentChoices(c)).map((a) => [a.value, a.label]));
    return c.html(
      <Layout
        shell={shell}
        actions={
          <a class="button" href="/dashboard/widgets/new">
            New widget
          </a>
        }
      >
        {c.req.query("deleted") ? <Flash>Widget deleted.</Flash> : null}
        <div class="card table-wrap" tabindex={0}>
          {page.data.length === 0 ? (
            <p>
              No widgets yet. <a href="/dashboard/widgets/new">Put an agent on a website</a>.
            </p>
          ) : (
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Agent</th>
                  <th scope="col">Mode</th>
                  <th scope="col">Allowed origins</th>
                  <th scope="col">Status</th>
                </tr>
              </thead>
              <tbody>
                {page.data.map((w) => (
                  <tr>
                    <td>
                      <a href={`/dashboard/widgets/${w.id}`}>{w.name}</a>
                    </td>
                    <td>{names.get(w.agentId) ?? "—"}</td>
                    <td>{w.mode}</td>
                    <td class="small mono">{w.allowedOrigins.join(", ")}</td>
                    <td>{w.revokedAt ? <span class="badge bad">revoked</span> : <span class="badge good">active</span>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      </Layout>,
    );
  });

  app.get("/dashboard/widgets/new", async (c) => renderForm(c, null, valuesOf(null, (await agentChoices(c))[0]?.value)));

  app.post("/dashboard/widgets", async (c) => {
    const checked = validate(createWidgetSchema, inputOf(c.var.form));
    if (!checked.ok) return renderForm(c, null, typed(c.var.form), onFields(checked.errors), 400);
    try {
      const row = await createWidget(c.var.db, c.var.auth.organizationId, checked.data);
      return c.redirect(`/dashboard/widgets/${row.id}?saved=1`, 303);
    } catch (err) {
      return renderForm(c, null, typed(c.var.form), apiErrorFields(err), 400);
    }
  });

  app.get("/dashboard/widgets/:id", async (c) => {
    const widget = await own(c, c.req.param("id"));
    const notice = c.req.query("saved")
      ? "Widget saved."
      : c.req.query("rotated")
        ? "New token: update the tag on your pages."
        : c.req.query("revoked")
          ? "Token revoked."
          : undefined;
    return renderForm(c, widget, valuesOf(widget), {}, 200, notice);
  });

  app.post("/dashboard/widgets/:id", async (c) => {
    const widget = await own(c, c.req.param("id"));
    const checked = validate(updateWidgetSchema, inputOf(c.var.form));
    if (!checked.ok) return renderForm(c, widget, typed(c.var.form), onFields(checked.errors), 400);
    try {
      await updateWidget(c.var.db, c.var.auth.organizationId, widget.id, checked.data);
      return c.redirect(`/dashboard/widgets/${widget.id}?saved=1`, 303);
    } catch (err) {
      return renderForm(c, widget, typed(c.var.form), apiErrorFields(err), 400);
    }
  });

  app.post("/dashboard/widgets/:id/rotate-token", async (c) => {
    const widget = await own(c, c.req.param("id"));
    await rotateWidgetToken(c.var.db, c.var.auth.organizationId, widget.id);
    return c.redirect(`/dashboard/widgets/${widget.id}?rotated=1`, 303);
  });

  app.post("/dashboard/widgets/:id/revoke", async (c) => {
    const widget = await own(c, c.req.param("id"));
    try {
      await revokeWidget(c.var.db, c.var.auth.organizationId, widget.id);
    } catch (err) {
      if (!(err instanceof ApiError && err.code === "conflict")) throw err;
    }
    return c.redirect(`/dashboard/widgets/${widget.id}?revoked=1`, 303);
  });

  app.post("/dashboard/widgets/:id/delete", async (c) => {
    const widget = await own(c, c.req.param("id"));
    await deleteWidget(c.var.db, c.var.auth.organizationId, widget.id);
    return c.redirect("/dashboard/widgets?deleted=1", 303);
  });
}
