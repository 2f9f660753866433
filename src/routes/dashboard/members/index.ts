// Members, under /dashboard/members, one file per page operation: everyone sees who is in the
// workspace; admins invite (an email and a role) and change roles. There is no email delivery yet:
// inviting a new address creates the account with a one-time password shown to the admin to pass
// on (docs/dashboard.md).
import { screenRouter } from "../../../dashboard/routers";
import { registerChangeMemberRolePage } from "./change-role";
import { registerInviteMemberPage } from "./invite";
import { registerListMembersPage } from "./list";

export function memberPages() {
  const app = screenRouter();
  registerListMembersPage(app);
  registerInviteMemberPage(app);
  registerChangeMemberRolePage(app);
  return app;
}
