/** @jsxImportSource hono/jsx */
// Web widgets (issue 7's channels, created here for an agent), under /dashboard/widgets: list,
// create, edit every field, the embed code, rotate the token, revoke, delete. The same schemas and
// service functions as /v1/widgets.
import type { Context } from "hono";
import type { AppEnv } from "../../context";
import { ApiError } from "../../lib/errors";
import { isUuid } from "../../lib/ids";
import { cdnOrigin } from "../../routes/v1/widgets/shared";
import { embedCode } from "../../widgets/mapper";
import { createWidgetSchema, updateWidgetSchema } from "../../widgets/schema";
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
import { apiErrorFields, validate } from "../forms";
import { screenRouter } from "../routers";
import { type FieldErrors, shellOf } from "../ui";
import { inputOf, onFields, typed, type Values, valuesOf } from "./form";
import { WidgetForm, WidgetList } from "./views";

async function agentChoices(c: Context<AppEnv>) {
  const rows = await listWidgetAgents({ ctx: c.var.ctx });
  return rows.map((a) => ({ value: a.id, label: a.name }));
}

async function own(c: Context<AppEnv>, id: string): Promise<Widget> {
  const row = isUuid(id) ? await getWidget({ ctx: c.var.ctx, input: { id } }) : null;
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
  const agents = await agentChoices(c);
  const withEmbed = widget ? { row: widget, embed: embedCode(cdnOrigin(c), widget.token) } : null;
  return c.html(<WidgetForm shell={shell} widget={withEmbed} values={values} errors={errors} agents={agents} notice={notice} />, status);
}

const NOTICES: Array<[query: string, notice: string]> = [
  ["saved", "Widget saved."],
  ["rotated", "New token: update the tag on your pages."],
  ["revoked", "Token revoked."],
];

export function widgetPages() {
  const app = screenRouter();

  app.get("/", async (c) => {
    const shell = await shellOf(c, "Widgets", "widgets");
    const page = await listWidgets({ ctx: c.var.ctx, input: { limit: 100 } });
    const agentNames = new Map((await agentChoices(c)).map((a) => [a.value, a.label]));
    const notice = c.req.query("deleted") ? "Widget deleted." : undefined;
    return c.html(<WidgetList shell={shell} widgets={page.data} agentNames={agentNames} notice={notice} />);
  });

  app.get("/new", async (c) => renderForm(c, null, valuesOf(null, (await agentChoices(c))[0]?.value)));

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

  app.get("/:id", async (c) => {
    const widget = await own(c, c.req.param("id"));
    const notice = NOTICES.find(([query]) => c.req.query(query))?.[1];
    return renderForm(c, widget, valuesOf(widget), {}, 200, notice);
  });

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

  app.post("/:id/rotate-token", async (c) => {
    const widget = await own(c, c.req.param("id"));
    await rotateWidgetToken({ ctx: c.var.ctx, input: { id: widget.id } });
    return c.redirect(`/dashboard/widgets/${widget.id}?rotated=1`, 303);
  });

  app.post("/:id/revoke", async (c) => {
    const widget = await own(c, c.req.param("id"));
    try {
      await revokeWidget({ ctx: c.var.ctx, input: { id: widget.id } });
    } catch (err) {
      if (!(err instanceof ApiError && err.code === "conflict")) throw err;
    }
    return c.redirect(`/dashboard/widgets/${widget.id}?revoked=1`, 303);
  });

  app.post("/:id/delete", async (c) => {
    const widget = await own(c, c.req.param("id"));
    await deleteWidget({ ctx: c.var.ctx, input: { id: widget.id } });
    return c.redirect("/dashboard/widgets?deleted=1", 303);
  });

  return app;
}
