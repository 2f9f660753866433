import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { valuesOf } from "../../../dashboard/agents/form";
import { templateOf } from "../../../dashboard/agents/templates";
import { renderForm } from "./shared";

/** GET /dashboard/agents/new: the empty form, or a template's values (?template=receptionist). */
export const registerNewAgentPage = (app: OpenAPIHono<AppEnv>) =>
  app.get("/new", (c) => {
    const template = templateOf(c.req.query("template"));
    return renderForm(c, null, { ...valuesOf(null), ...(template?.values ?? {}) }, {}, 200, {
      notice: template ? `Started from “${template.label}”.` : undefined,
    });
  });
