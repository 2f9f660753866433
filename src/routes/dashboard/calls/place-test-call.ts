import type { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import { findAgent } from "../../../agents/service";
import { agentVersionField } from "../../../agents/versions-schema";
import { placePhoneCall } from "../../../calls/place";
import type { AppEnv } from "../../../context";
import { agentVersionOf, one, validate } from "../../../dashboard/forms";
import { ApiError } from "../../../lib/errors";
import { phoneNumber } from "../../v1/calls/schema";
import { listPage } from "./shared";

const testCallSchema = z.object({
  agentId: z.uuid({ message: "choose an agent" }),
  phoneNumber: phoneNumber("phoneNumber"),
  fromNumber: phoneNumber("fromNumber").optional(),
  agentVersion: agentVersionField("The version the call runs; empty: the live one.").optional(),
});

/**
 * POST /dashboard/calls/test: "place a test call" from the chosen caller id (or the default), at the
 * version chosen (empty: the live one), through the API's own placement (calls/place.ts).
 */
export const registerPlaceTestCallPage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/test", async (c) => {
    const values = {
      agentId: one(c.var.form, "agentId"),
      phoneNumber: one(c.var.form, "phoneNumber"),
      fromNumber: one(c.var.form, "fromNumber"),
      agentVersion: one(c.var.form, "agentVersion"),
    };
    const checked = validate(testCallSchema, {
      ...values,
      fromNumber: values.fromNumber || undefined,
      agentVersion: agentVersionOf(c.var.form) ?? undefined,
    });
    if (!checked.ok) return listPage(c, { errors: checked.errors, values }, 400);
    const agent = await findAgent({ ctx: c.var.ctx, input: { id: checked.data.agentId } });
    if (!agent) return listPage(c, { errors: { agentId: "no such agent in this workspace" }, values }, 400);
    try {
      const { call } = await placePhoneCall({
        ctx: c.var.ctx,
        input: {
          agent,
          call: { phoneNumber: checked.data.phoneNumber, fromNumber: checked.data.fromNumber, agentVersion: checked.data.agentVersion },
          idempotencyKey: undefined,
        },
      });
      return c.redirect(`/dashboard/calls/${call.id}`, 303);
    } catch (err) {
      if (err instanceof ApiError && err.status < 500) return listPage(c, { errors: { form: err.message }, values }, 400);
      throw err;
    }
  });
