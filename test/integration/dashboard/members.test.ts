// The Members screen over HTTP (the browser flow is in browser.test.ts): inviting a new address
// or an existing account, changing roles within the workspace only, and the shell's workspace
// switcher, whose names come with the session.
import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { csrfToken } from "../../../src/dashboard/session";
import { memberships } from "../../../src/db/schema";
import { addMemberTo, createWorkspace, json, request, signIn, testDb, type Workspace } from "../../support/harness";

type SessionBody = { organizations: Array<{ id: string; name: string; role: string }> };

/** The workspace's admin, signed in to the pages: GET and POST (a form with its CSRF token) return status and HTML. */
async function pagesAs(email: string, password: string) {
  const session = await signIn(email, password);
  const csrf = await csrfToken(session.token);
  const send = async (path: string, fields?: Record<string, string>) => {
    const res = await request(path, {
      method: fields ? "POST" : "GET",
      headers: { cookie: session.cookie, ...(fields ? { "content-type": "application/x-www-form-urlencoded" } : {}) },
      body: fields ? new URLSearchParams({ ...fields, _csrf: csrf }) : undefined,
    });
    return { status: res.status, cacheControl: res.headers.get("cache-control") ?? "", html: await res.text() };
  };
  return { ...session, get: (path: string) => send(path), post: send };
}

const admin = (ws: Workspace) => pagesAs(ws.admin.email, ws.admin.password);
const roleIn = async (organizationId: string, userId: string) =>
  (
    await testDb()
      .select({ role: memberships.role })
      .from(memberships)
      .where(and(eq(memberships.organizationId, organizationId), eq(memberships.userId, userId)))
  )[0]?.role;

describe("dashboard members", () => {
  it("invites a new address: the account gets a one-time password, shown once, that signs in", async () => {
    const ws = await createWorkspace("Invite workspace");
    const pages = await admin(ws);
    const email = `Invited-${randomUUID()}@Example.test`;
    const res = await pages.post("/dashboard/members", { email, role: "member" });
    expect(res.status).toBe(200);
    expect(res.cacheControl).toContain("no-store");
    const lower = email.toLowerCase();
    expect(res.html).toContain(`Account created for ${lower}.`);
    const password = /<code id="invite-password">([^<]+)<\/code>/.exec(res.html)?.[1] ?? "";
    expect(password).toMatch(/^[0-9A-Za-z]{6}-[0-9A-Za-z]{6}-[0-9A-Za-z]{6}$/);
    expect(res.html).toContain(`<td>${lower}</td>`);

    const invited = await signIn(email, password);
    const session = await json<SessionBody>(await request("/dashboard/api/session", { headers: { cookie: invited.cookie } }));
    expect(session.organizations).toEqual([{ id: ws.organizationId, name: "Invite workspace", role: "member" }]);
    expect((await pages.get("/dashboard/members")).html).not.toContain("invite-password");
  });

  it("adds an existing account without a password (theirs still works), and lists both workspaces by name", async () => {
    const first = await createWorkspace("Older workspace");
    const second = await createWorkspace("Newer workspace");
    const res = await (await admin(second)).post("/dashboard/members", { email: first.admin.email, role: "admin" });
    expect(res.status).toBe(200);
    expect(res.html).toContain(`${first.admin.email} is now a admin of this workspace.`);
    expect(res.html).not.toContain("invite-password");

    const pages = await admin(first); // the password they had still signs in
    const session = await json<SessionBody>(await request("/dashboard/api/session", { headers: { cookie: pages.cookie } }));
    expect(session.organizations).toEqual([
      { id: first.organizationId, name: "Older workspace", role: "admin" },
      { id: second.organizationId, name: "Newer workspace", role: "admin" },
    ]);
    // The layout's switcher: every workspace by name and role, the current one (the oldest) selected.
    const html = (await pages.get("/dashboard/members")).html;
    expect(html).toContain(`<option value="${first.organizationId}" selected="">Older workspace (admin)</option>`);
    expect(html).toContain(`<option value="${second.organizationId}">Newer workspace (admin)</option>`);
  });

  it("changes a member's role; refuses the admin's own role and another workspace's member", async () => {
    const ws = await createWorkspace();
    const other = await createWorkspace();
    const member = await addMemberTo(ws, "member");
    const stranger = await addMemberTo(other, "member");
    const pages = await admin(ws);

    const saved = await pages.post(`/dashboard/members/${member.userId}/role`, { role: "admin" });
    expect(saved.status).toBe(200);
    expect(saved.html).toContain("Role saved.");
    expect(await roleIn(ws.organizationId, member.userId)).toBe("admin");

    const own = await pages.post(`/dashboard/members/${ws.admin.id}/role`, { role: "member" });
    expect(own.status).toBe(400);
    expect(own.html).toContain("you cannot change your own role");
    expect(await roleIn(ws.organizationId, ws.admin.id)).toBe("admin");

    const bad = await pages.post(`/dashboard/members/${member.userId}/role`, { role: "owner" });
    expect(bad.status).toBe(400);
    expect(bad.html).toContain("choose admin or member");

    for (const userId of [stranger.userId, randomUUID(), "not-a-uuid"]) {
      const missing = await pages.post(`/dashboard/members/${userId}/role`, { role: "admin" });
      expect(missing.status, userId).toBe(404);
      expect(missing.html).toContain("No such member in this workspace.");
    }
    expect(await roleIn(other.organizationId, stranger.userId)).toBe("member");
    expect(await roleIn(ws.organizationId, stranger.userId)).toBeUndefined();
  });

  it("lets a member see the list but not invite or change roles", async () => {
    const ws = await createWorkspace();
    const member = await addMemberTo(ws, "member");
    const pages = await pagesAs(member.email, member.password);
    const list = await pages.get("/dashboard/members");
    expect(list.status).toBe(200);
    expect(list.html).toContain("Only admins can invite members or change roles.");
    expect(list.html).toContain(`<td>${ws.admin.email}</td>`);
    const invite = await pages.post("/dashboard/members", { email: `x-${randomUUID()}@example.test`, role: "admin" });
    expect(invite.status).toBe(403);
    expect((await pages.post(`/dashboard/members/${ws.admin.id}/role`, { role: "member" })).status).toBe(403);
    expect(await roleIn(ws.organizationId, ws.admin.id)).toBe("admin");
  });
});
