import type { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import type { AppEnv } from "../../../context";
import { one, validate } from "../../../dashboard/forms";
import { adminOnly } from "../../../dashboard/routers";
import { inviteMember } from "../../../organizations/service";
import { render } from "./shared";

const inviteSchema = z.object({
  email: z.email({ pattern: z.regexes.html5Email, message: "must be an email address" }).max(320),
  role: z.enum(["admin", "member"], { message: "choose admin or member" }),
});

/** POST /dashboard/members: invite an email with a role (admins); a new account's one-time password shown once. */
export const registerInviteMemberPage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/", adminOnly, async (c) => {
    const values = { email: one(c.var.form, "email"), role: one(c.var.form, "role") };
    const checked = validate(inviteSchema, values);
    if (!checked.ok) return render(c, { errors: checked.errors, values }, 400);
    const { email, role, password } = await inviteMember({ ctx: c.var.ctx, input: { email: checked.data.email, role: checked.data.role } });
    c.header("Cache-Control", "no-store");
    return render(c, password ? { password: { email, value: password } } : { notice: `${email} is now a ${role} of this workspace.` });
  });
