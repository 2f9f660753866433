/** @jsxImportSource hono/jsx */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { shellOf } from "../../../dashboard/ui";
import { WidgetList } from "../../../dashboard/widgets/views";
import { listWidgets } from "../../../widgets/service";
import { agentChoices } from "./shared";

/** GET /dashboard/widgets: the workspace's widgets with their agents. */
export const registerListWidgetsPage = (app: OpenAPIHono<AppEnv>) =>
  app.get("/", async (c) => {
    const shell = await shellOf(c, "Widgets", "widgets");
    const page = await listWidgets({ ctx: c.var.ctx, input: { limit: 100 } });
    const agentNames = new Map((await agentChoices(c)).map((a) => [a.value, a.label]));
    const notice = c.req.query("deleted") ? "Widget deleted." : undefined;
    return c.html(<WidgetList shell={shell} widgets={page.data} agentNames={agentNames} notice={notice} />);
  });
