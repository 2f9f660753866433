import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { one, validate } from "../../../dashboard/forms";
import { BASE } from "../../../dashboard/webhooks/parts";
import { ApiError } from "../../../lib/errors";
import { updateEndpoint } from "../../../webhooks/endpoints";
import { updateEndpointSchema } from "../../v1/webhook-endpoints/schema";
import { endpointId } from "./shared";

/** POST /dashboard/webhooks/:id/toggle: turn the endpoint on or off, from the list or its page. */
export const registerToggleEndpointPage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/:id/toggle", async (c) => {
    const id = endpointId(c);
    const wanted = one(c.var.form, "active");
    const checked = validate(updateEndpointSchema, { active: wanted === "true" ? true : wanted === "false" ? false : wanted });
    if (!checked.ok) throw new ApiError("bad_request", "The toggle form must send active=true or active=false.");
    const row = await updateEndpoint({ ctx: c.var.ctx, input: { id, patch: checked.data } });
    const notice = row.active ? "on" : "off";
    return c.redirect(one(c.var.form, "from") === "list" ? `${BASE}?notice=${notice}` : `${BASE}/${row.id}?notice=${notice}`, 303);
  });
