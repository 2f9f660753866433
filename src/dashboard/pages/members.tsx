/** @jsxImportSource hono/jsx */
// Members: everyone sees who is in the workspace; admins invite (an email and a role) and change
// roles. There is no email delivery yet: inviting a new address creates the account with a
// one-time password shown to the admin to pass on (docs/dashboard.md).
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { z } from "zod";
import type { AppEnv } from "../../context";
import { ApiError } from "../../lib/errors";
import { isUuid } from "../../lib/ids";
import { changeMemberRole, inviteMember, listMembers, memberNotFound } from "../../organizations/service";
import { apiErrorFields, one, validate } from "./forms";
import { requireAdminPage } from "./session";
import { Csrf, ErrorSummary, type FieldErrors, Flash, Layout, Secret, Select, shellOf, TextField, When } from "./ui";

const ROLES = [
  { value: "member", label: "Member: agents, voices, calls, usage" },
  { value: "admin", label: "Admin: also API keys, webhooks, members" },
];

const inviteSchema = z.object({
  email: z.email({ pattern: z.regexes.html5Email, message: "must be an email address" }).max(320),
  role: z.enum(["admin", "member"], { message: "choose admin or member" }),
});

async function render(
  c: Context<AppEnv>,
  extra: {
    errors?: FieldErrors;
    values?: { email?: string; role?: string };
    notice?: string;
    password?: { email: string; value: string };
  } = {},
  status: 200 | 400 = 200,
) {
  const shell = await shellOf(c, "Members", "members");
  const rows = await listMembers(c.var.db, c.var.auth.organizationId);
  const admin = shell.role === "admin";
  return c.html(
    <Layout shell={shell}>
      {extra.password ? (
        <Secret
          id="invite-password"
          value={extra.password.value}
          warning={`Account created for ${extra.password.email}. Pass on this one-time password securely; it is not shown again.`}
        />
      ) : null}
      {extra.notice ? <Flash>{extra.notice}</Flash> : null}
      {admin ? (
        <div class="card">
          <h2 class="mt0">Invite a member</h2>
          <ErrorSummary errors={extra.errors} />
          <form method="post" action="/dashboard/members" novalidate>
            <Csrf token={shell.csrf} />
            <div class="grid2">
              <TextField name="email" label="Email" type="email" value={extra.values?.email} errors={extra.errors} required />
              <Select name="role" label="Role" value={extra.values?.role ?? "member"} options={ROLES} errors={extra.errors} />
            </div>
            <p>
              <button type="submit">Invite</button>
            </p>
          </form>
        </div>
      ) : (
        <p class="muted">Only admins can invite members or change roles.</p>
      )}
      <div class="card table-wrap" tabindex={0}>
        <table>
          <thead>
            <tr>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">Member since</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((m) => (
              <tr>
                <td>{m.email}</td>
                <td>
                  {admin && m.userId !== c.var.auth.user?.id ? (
                    <form method="post" action={`/dashboard/members/${m.userId}/role`} class="row">
                      <Csrf token={shell.csrf} />
                      <label class="sr" for={`role-${m.userId}`}>
                        Role of {m.email}
                      </label>
                      <select class="w-auto" id={`role-${m.userId}`} name="role">
                        <option value="member" selected={m.role === "member"}>
                          member
                        </option>
                        <option value="admin" selected={m.role === "admin"}>
                          admin
                        </option>
                      </select>
                      <button type="submit" class="secondary">
                        Save
                      </button>
                    </form>
                  ) : (
                    <span class="badge">{m.role}</span>
                  )}
                </td>
                <td>
                  <When at={m.since} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Layout>,
    status,
  );
}

export function registerMemberPages(app: OpenAPIHono<AppEnv>): void {
  app.get("/dashboard/members", (c) => render(c));

  app.post("/dashboard/members", async (c) => {
    requireAdminPage(c, true);
    const values = { email: one(c.var.form, "email"), role: one(c.var.form, "role") };
    const checked = validate(inviteSchema, values);
    if (!checked.ok) return render(c, { errors: checked.errors, values }, 400);
    const { email, role, password } = await inviteMember(c.var.db, {
      organizationId: c.var.auth.organizationId,
      email: checked.data.email,
      role: checked.data.role,
    });
    c.header("Cache-Control", "no-store");
    return render(c, password ? { password: { email, value: password } } : { notice: `${email} is now a ${role} of this workspace.` });
  });

  app.post("/dashboard/members/:userId/role", async (c) => {
    requireAdminPage(c, true);
    const userId = c.req.param("userId");
    const role = one(c.var.form, "role");
    if (!isUuid(userId)) throw memberNotFound();
    if (role !== "admin" && role !== "member") return render(c, { errors: { role: "choose admin or member" } }, 400);
    try {
      await changeMemberRole(c.var.db, {
        organizationId: c.var.auth.organizationId,
        userId,
        role,
        actorUserId: c.var.auth.user?.id ?? null,
      });
    } catch (err) {
      if (err instanceof ApiError && err.code === "validation_failed") return render(c, { errors: apiErrorFields(err) }, 400);
      throw err;
    }
    return render(c, { notice: "Role saved." });
  });
}
