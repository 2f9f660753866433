/** @jsxImportSource hono/jsx */
// What the member pages share: the one page (who is in the workspace, the invite form, a new
// account's one-time password or a notice), rendered after every operation.
import type { Context } from "hono";
import type { AppEnv } from "../../../context";
import { Members, type MembersProps } from "../../../dashboard/members/views";
import { shellOf } from "../../../dashboard/ui";
import { listMembers } from "../../../organizations/service";

export async function render(c: Context<AppEnv>, extra: Omit<MembersProps, "shell" | "members" | "userId"> = {}, status: 200 | 400 = 200) {
  const shell = await shellOf(c, "Members", "members");
  const members = await listMembers({ ctx: c.var.ctx });
  return c.html(<Members shell={shell} members={members} userId={c.var.auth.user?.id} {...extra} />, status);
}
