/** @jsxImportSource hono/jsx */
// What the widget pages share: the form page (new, edit with the embed code, and a refused create
// or update), the agent choices, and the ownership lookup (the API's own: widgets/service.ts).
import type { Context } from "hono";
import type { AppEnv } from "../../../context";
import { type FieldErrors, shellOf } from "../../../dashboard/ui";
import type { Values } from "../../../dashboard/widgets/form";
import type { PreviewAgents } from "../../../dashboard/widgets/preview";
import { WidgetForm } from "../../../dashboard/widgets/views";
import { isUuid } from "../../../lib/ids";
import { embedCode } from "../../../widgets/mapper";
import { getWidget, listWidgetAgents, type Widget, widgetNotFound } from "../../../widgets/service";
import { cdnOrigin } from "../../v1/widgets/shared";

/** The agent picker's choices, and the agents' names and greetings for the live preview. */
export async function agentChoicesWithLooks(c: Context<AppEnv>) {
  const rows = await listWidgetAgents({ ctx: c.var.ctx });
  return {
    choices: rows.map((a) => ({ value: a.id, label: a.name })),
    looks: Object.fromEntries(rows.map((a) => [a.id, { name: a.name, greeting: a.greeting }])) as PreviewAgents,
  };
}

export async function agentChoices(c: Context<AppEnv>) {
  return (await agentChoicesWithLooks(c)).choices;
}

export async function own(c: Context<AppEnv>, id: string): Promise<Widget> {
  const row = isUuid(id) ? await getWidget({ ctx: c.var.ctx, input: { id } }) : null;
  if (!row) throw widgetNotFound();
  return row;
}

export async function renderForm(
  c: Context<AppEnv>,
  widget: Widget | null,
  values: Values,
  errors: FieldErrors = {},
  status: 200 | 400 = 200,
  notice?: string,
) {
  const shell = await shellOf(c, widget ? `Widget: ${widget.name}` : "New widget", "widgets");
  const agents = await agentChoicesWithLooks(c);
  const withEmbed = widget ? { row: widget, embed: embedCode(cdnOrigin(c), widget.token) } : null;
  return c.html(
    <WidgetForm
      shell={shell}
      widget={withEmbed}
      values={values}
      errors={errors}
      agents={agents.choices}
      previewAgents={agents.looks}
      notice={notice}
    />,
    status,
  );
}
