import type { OpenAPIHono } from "@hono/zod-openapi";
import { addPhoneNumber } from "../../../calls/phone-numbers";
import type { AppEnv } from "../../../context";
import { apiErrorFields, one, validate } from "../../../dashboard/forms";
import { BASE } from "../../../dashboard/phone-numbers/views";
import { adminOnly } from "../../../dashboard/routers";
import { ApiError } from "../../../lib/errors";
import { createPhoneNumberSchema } from "../../v1/phone-numbers/schema";
import { renderNumbers } from "./shared";

/** POST /dashboard/phone-numbers (admins): the API's schema and addPhoneNumber; its refusals on the form. */
export const registerCreatePhoneNumberPage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/", adminOnly, async (c) => {
    const form = c.var.form ?? {};
    const values = { number: one(form, "number").trim(), label: one(form, "label"), agentId: one(form, "agentId") };
    const checked = validate(createPhoneNumberSchema, {
      number: values.number,
      label: values.label.trim() === "" ? null : values.label,
      agentId: values.agentId === "" ? null : values.agentId,
    });
    if (!checked.ok) return renderNumbers(c, { errors: checked.errors, values }, 400);
    try {
      await addPhoneNumber({ ctx: c.var.ctx, input: checked.data });
    } catch (err) {
      if (!(err instanceof ApiError) || err.status >= 500) throw err;
      return renderNumbers(c, { errors: apiErrorFields(err), values }, err.status === 409 ? 409 : 400);
    }
    return c.redirect(`${BASE}?notice=added`, 303);
  });
