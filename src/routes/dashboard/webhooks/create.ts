import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { apiErrorFields, validate } from "../../../dashboard/forms";
import { inputOf, onFields, typedValues } from "../../../dashboard/webhooks/values";
import { ApiError } from "../../../lib/errors";
import { createEndpoint, type SavedEndpoint } from "../../../webhooks/endpoints";
import { createEndpointSchema } from "../../v1/webhook-endpoints/schema";
import { renderEndpoint, renderNew, saveWarningNotice } from "./shared";

const CREATED_WARNING =
  "Endpoint created. Copy the signing secret now: this is the only time it is shown in full. Your receiver verifies X-Service-Signature with it.";

/** POST /dashboard/webhooks: the new form sent; the endpoint's page with its signing secret, shown this once. */
export const registerCreateEndpointPage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/", async (c) => {
    const values = typedValues(c.var.form);
    const checked = validate(createEndpointSchema, inputOf(values));
    if (!checked.ok) return renderNew(c, values, onFields(checked.errors, values), 400);
    let row: SavedEndpoint;
    try {
      row = await createEndpoint({ ctx: c.var.ctx, input: checked.data });
    } catch (err) {
      if (err instanceof ApiError && err.code === "validation_failed")
        return renderNew(c, values, onFields(apiErrorFields(err), values), 400);
      throw err;
    }
    // The secret is in this response only: never in a URL, a cookie or a cache.
    c.header("Cache-Control", "no-store");
    const notice = row.warnings.length ? saveWarningNotice(row.warnings) : undefined;
    return renderEndpoint(c, row, { secret: { value: row.secret, warning: CREATED_WARNING }, notice }, 201);
  });
