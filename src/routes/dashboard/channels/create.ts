import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { BASE } from "../../../dashboard/channels/connect";
import { createInputOf, onFields, typed, typeOf } from "../../../dashboard/channels/form";
import { apiErrorFields, one, validate } from "../../../dashboard/forms";
import { adminOnly } from "../../../dashboard/routers";
import type { FieldErrors } from "../../../dashboard/ui";
import type { ChannelType } from "../../../db/schema";
import { ApiError } from "../../../lib/errors";
import { createChannel } from "../../../messaging/channels";
import { createChannelSchema } from "../../../messaging/schema";
import { renderConnect } from "./shared";

/** The provider's refusal on the field it is about (the token, the number); a provider failure on the form. */
function connectErrors(err: unknown, type: ChannelType): FieldErrors {
  if (!(err instanceof ApiError)) throw err;
  if (err.code === "channel_credentials_rejected") return { [type === "telegram" ? "botToken" : "accessToken"]: err.message };
  if (err.code === "channel_taken") return { [type === "telegram" ? "botToken" : "phoneNumberId"]: err.message };
  if (err.code === "channel_provider_error") return { form: err.message };
  return apiErrorFields(err);
}

/** POST /dashboard/channels: the connect form sent (admins), through the API's schema and service. */
export const registerCreateChannelPage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/", adminOnly, async (c) => {
    const type = typeOf(one(c.var.form, "type"));
    const checked = validate(createChannelSchema, createInputOf(c.var.form, type));
    if (!checked.ok) return renderConnect(c, type, typed(c.var.form), onFields(checked.errors), 400);
    try {
      const row = await createChannel({ ctx: c.var.ctx, input: checked.data });
      return c.redirect(`${BASE}/${row.id}?notice=connected`, 303);
    } catch (err) {
      return renderConnect(c, type, typed(c.var.form), connectErrors(err, type), err instanceof ApiError ? err.status : 500);
    }
  });
