import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { apiErrorFields, validate } from "../../../dashboard/forms";
import { BASE } from "../../../dashboard/webhooks/parts";
import { inputOf, onFields, typedValues } from "../../../dashboard/webhooks/values";
import { ApiError } from "../../../lib/errors";
import { getEndpoint, type SavedEndpoint, updateEndpoint } from "../../../webhooks/endpoints";
import { updateEndpointSchema } from "../../v1/webhook-endpoints/schema";
import { endpointId, renderEndpoint, saveWarningNotice } from "./shared";

/** POST /dashboard/webhooks/:id: the endpoint's form sent. */
export const registerUpdateEndpointPage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/:id", async (c) => {
    const row = await getEndpoint({ ctx: c.var.ctx, input: { id: endpointId(c) } });
    const values = typedValues(c.var.form);
    const { active, ...rest } = inputOf(values);
    // `active` only when it changes: turning on again also clears the service's failure count.
    const checked = validate(updateEndpointSchema, active === row.active ? rest : { ...rest, active });
    if (!checked.ok) return renderEndpoint(c, row, { values, errors: onFields(checked.errors, values) }, 400);
    let saved: SavedEndpoint;
    try {
      saved = await updateEndpoint({ ctx: c.var.ctx, input: { id: row.id, patch: checked.data } });
    } catch (err) {
      if (err instanceof ApiError && err.code === "validation_failed")
        return renderEndpoint(c, row, { values, errors: onFields(apiErrorFields(err), values) }, 400);
      throw err;
    }
    if (saved.warnings.length) return renderEndpoint(c, saved, { notice: saveWarningNotice(saved.warnings) });
    return c.redirect(`${BASE}/${row.id}?notice=saved`, 303);
  });
