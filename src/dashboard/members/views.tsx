/** @jsxImportSource hono/jsx */
// The Members screen: the one-time password of a new account (shown once), the invite form
// (admins), and the members with their roles (admins change them, except their own).
import type { FC } from "hono/jsx";
import type { Member } from "../../organizations/service";
import { Badge, Csrf, DataTable, ErrorSummary, type FieldErrors, Flash, Layout, Secret, Select, type Shell, TextField, When } from "../ui";

const ROLES = [
  { value: "member", label: "Member: agents, voices, calls, usage" },
  { value: "admin", label: "Admin: also API keys, webhooks, members" },
];

export interface MembersProps {
  shell: Shell;
  members: Member[];
  /** The signed-in user, whose own role is not editable here. */
  userId: string | undefined;
  errors?: FieldErrors;
  values?: { email?: string; role?: string };
  notice?: string;
  password?: { email: string; value: string };
}

const RoleForm: FC<{ csrf: string; m: Member }> = ({ csrf, m }) => (
  <form method="post" action={`/dashboard/members/${m.userId}/role`} class="row">
    <Csrf token={csrf} />
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
);

export const Members: FC<MembersProps> = ({ shell, members, userId, errors, values, notice, password }) => {
  const admin = shell.role === "admin";
  return (
    <Layout shell={shell}>
      {password ? (
        <Secret
          id="invite-password"
          value={password.value}
          warning={`Account created for ${password.email}. Pass on this one-time password securely; it is not shown again.`}
        />
      ) : null}
      {notice ? <Flash>{notice}</Flash> : null}
      {admin ? (
        <div class="card">
          <h2 class="mt0">Invite a member</h2>
          <ErrorSummary errors={errors} />
          <form method="post" action="/dashboard/members" novalidate>
            <Csrf token={shell.csrf} />
            <div class="grid2">
              <TextField name="email" label="Email" type="email" value={values?.email} errors={errors} required />
              <Select name="role" label="Role" value={values?.role ?? "member"} options={ROLES} errors={errors} />
            </div>
            <p>
              <button type="submit">Invite</button>
            </p>
          </form>
        </div>
      ) : (
        <p class="muted">Only admins can invite members or change roles.</p>
      )}
      <DataTable
        rows={members}
        columns={[
          { header: "Email", cell: (m) => m.email },
          {
            header: "Role",
            cell: (m) => (admin && m.userId !== userId ? <RoleForm csrf={shell.csrf} m={m} /> : <Badge>{m.role}</Badge>),
          },
          { header: "Member since", cell: (m) => <When at={m.since} /> },
        ]}
      />
    </Layout>
  );
};
