/** @jsxImportSource hono/jsx */
// Members, under /dashboard/members: everyone sees who is in the workspace; admins invite (an
// email and a role) and change roles. There is no email delivery yet: inviting a new address
// creates the account with a one-time password shown to the admin to pass on (docs/dashboard.md).
import type { Context } from "hono";
import { z } from "zod";
import type { AppEnv } from "../../context";
import { ApiError } from "../../lib/errors";
import { isUuid } from "../../lib/ids";
import { changeMemberRole, inviteMember, listMembers, memberNotFound } from "../../organizations/service";
import { apiErrorFields, one, validate } from "../forms";
import { adminOnly, screenRouter } from "../routers";
import { shellOf } from "../ui";
import { Members, type MembersProps } from "./views";

const inviteSchema = z.object({
  email: z.email({ pattern: z.regexes.html5Email, message: "must be an email address" }).max(320),
  role: z.enum(["admin", "member"], { message: "choose admin or member" }),
});

async function render(c: Context<AppEnv>, extra: Omit<MembersProps, "shell" | "members" | "userId"> = {}, status: 200 | 400 = 200) {
  const shell = await shellOf(c, "Members", "members");
  const members = await listMembers({ ctx: c.var.ctx });
  return c.html(<Members shell={shell} members={members} userId={c.var.auth.user?.id} {...extra} />, status);
}

export function memberPages() {
  const app = screenRouter();

  app.get("/", (c) => render(c));

  app.post("/", adminOnly, async (c) => {
    const values = { email: one(c.var.form, "email"), role: one(c.var.form, "role") };
    const checked = validate(inviteSchema, values);
    if (!checked.ok) return render(c, { errors: checked.errors, values }, 400);
    const { email, role, password } = await inviteMember({ ctx: c.var.ctx, input: { email: checked.data.email, role: checked.data.role } });
    c.header("Cache-Control", "no-store");
    return render(c, password ? { password: { email, value: password } } : { notice: `${email} is now a ${role} of this workspace.` });
  });

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

  return app;
}
