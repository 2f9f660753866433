import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { apiErrorFields, one } from "../../../dashboard/forms";
import { adminOnly } from "../../../dashboard/routers";
import { ApiError } from "../../../lib/errors";
import { isUuid } from "../../../lib/ids";
import { changeMemberRole, memberNotFound } from "../../../organizations/service";
import { render } from "./shared";

/** POST /dashboard/members/:userId/role (admins). */
export const registerChangeMemberRolePage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/:userId/role", adminOnly, async (c) => {
    const userId = c.req.param("userId");
    const role = one(c.var.form, "role");
    if (!isUuid(userId)) throw memberNotFound();
    if (role !== "admin" && role !== "member") return render(c, { errors: { role: "choose admin or member" } }, 400);
    try {
      await changeMemberRole({ ctx: c.var.ctx, input: { userId, role } });
    } catch (err) {
      if (err instanceof ApiError && err.code === "validation_failed") return render(c, { errors: apiErrorFields(err) }, 400);
      throw err;
    }
    return render(c, { notice: "Role saved." });
  });
