import type { OpenAPIHono } from "@hono/zod-openapi";
import { updatePhoneNumber } from "../../../calls/phone-numbers";
import type { AppEnv } from "../../../context";
import { one } from "../../../dashboard/forms";
import { BASE } from "../../../dashboard/phone-numbers/views";
import { adminOnly } from "../../../dashboard/routers";
import { isUuid } from "../../../lib/ids";
import { renderNumbers } from "./shared";

/** POST /dashboard/phone-numbers/:id (admins): the agent its inbound calls go to ("" is none). */
export const registerUpdatePhoneNumberPage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/:id", adminOnly, async (c) => {
    const agentId = one(c.var.form ?? {}, "agentId");
    if (agentId !== "" && !isUuid(agentId)) return renderNumbers(c, { errors: { form: "Choose one of the workspace's agents." } }, 400);
    await updatePhoneNumber({ ctx: c.var.ctx, input: { id: c.req.param("id"), patch: { agentId: agentId === "" ? null : agentId } } });
    return c.redirect(`${BASE}?notice=saved`, 303);
  });
