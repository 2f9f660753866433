import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { valuesOf } from "../../../dashboard/widgets/form";
import { agentChoices, renderForm } from "./shared";

/** GET /dashboard/widgets/new: the empty form, the first agent chosen. */
export const registerNewWidgetPage = (app: OpenAPIHono<AppEnv>) =>
  app.get("/new", async (c) => renderForm(c, null, valuesOf(null, (await agentChoices(c))[0]?.value)));
