import type { OpenAPIHono } from "@hono/zod-openapi";
import { endCall } from "../../../calls/hang-up";
import type { AppEnv } from "../../../context";
import { ApiError } from "../../../lib/errors";
import { renderCallPage } from "./show";

/**
 * POST /dashboard/calls/:id/hang-up: the API's endCall (src/calls/hang-up.ts), then back to the
 * call's page (303) with a flash. A call that has already ended (409), or a carrier that could not
 * cancel it (502), is told on the call's page; another workspace's call is the 404 page.
 */
export const registerHangUpCallPage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/:id/hang-up", async (c) => {
    const id = c.req.param("id");
    try {
      const { call, outcome } = await endCall({ ctx: c.var.ctx, input: { id } });
      const notice = outcome === "ending" ? "ending" : call.status === "canceled" ? "canceled" : "ended";
      return c.redirect(`/dashboard/calls/${call.id}?notice=${notice}`, 303);
    } catch (err) {
      if (err instanceof ApiError && (err.code === "conflict" || err.code === "telephony_error"))
        return renderCallPage(c, id, { kind: "error", text: err.message }, err.status);
      throw err;
    }
  });
