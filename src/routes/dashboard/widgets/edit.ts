import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { valuesOf } from "../../../dashboard/widgets/form";
import { own, renderForm } from "./shared";

const NOTICES: Array<[query: string, notice: string]> = [
  ["saved", "Widget saved."],
  ["rotated", "New token: update the tag on your pages."],
  ["revoked", "Token revoked."],
];

/** GET /dashboard/widgets/:id: the widget's form and its embed code. */
export const registerEditWidgetPage = (app: OpenAPIHono<AppEnv>) =>
  app.get("/:id", async (c) => {
    const widget = await own(c, c.req.param("id"));
    const notice = NOTICES.find(([query]) => c.req.query(query))?.[1];
    return renderForm(c, widget, valuesOf(widget), {}, 200, notice);
  });
