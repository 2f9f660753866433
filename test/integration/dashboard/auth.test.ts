import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { ApiKeyView } from "../../../src/api-keys/service";
import { sessions } from "../../../src/db/schema";
import { sha256Hex } from "../../../src/lib/crypto";
import type { Page } from "../../../src/lib/pagination";
import { addMemberTo, createWorkspace, expectError, json, request, signIn, testDb } from "../../support/harness";

type SessionBody = { user: { id: string; email: string }; organizations: Array<{ id: string; name: string; role: string }> };

describe("dashboard sign-in", () => {
  it("sets an HttpOnly, SameSite session cookie and lists the user's organizations", async () => {
    const ws = await createWorkspace("Acme ✓");
    const res = await request("/dashboard/api/sign-in", {
      method: "POST",
      json: { email: ws.admin.email.toUpperCase(), password: ws.admin.password },
    });
    expect(res.status).toBe(200);
    const cookie = res.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^session=sess_[0-9A-Za-z]{40};/);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    const body = await json<SessionBody>(res);
    expect(body.user.email).toBe(ws.admin.email);
    expect(body.organizations).toEqual([{ id: ws.organizationId, name: "Acme ✓", role: "admin" }]);
  });

  it("marks the cookies Secure behind a TLS-terminating proxy (X-Forwarded-Proto: https), from the API and the page", async () => {
    const ws = await createWorkspace();
    const credentials = { email: ws.admin.email, password: ws.admin.password };
    const secure = (res: Response) => /;\s*Secure(;|$)/i.test(res.headers.get("set-cookie") ?? "");
    const viaApi = (headers: Record<string, string>) => request("/dashboard/api/sign-in", { method: "POST", json: credentials, headers });
    const viaPage = (headers: Record<string, string>) =>
      request("/dashboard/sign-in", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
        body: new URLSearchParams(credentials),
      });
    // The stack serves plain http: Secure only when the proxy says the browser used https.
    expect(secure(await viaApi({}))).toBe(false);
    expect(secure(await viaApi({ "x-forwarded-proto": "http" }))).toBe(false);
    for (const proto of ["https", "HTTPS", "https, http"]) {
      const res = await viaApi({ "x-forwarded-proto": proto });
      expect(res.status).toBe(200);
      expect(secure(res), proto).toBe(true);
    }
    const page = await viaPage({ "x-forwarded-proto": "https" });
    expect(page.status).toBe(303);
    expect(secure(page)).toBe(true);
    const cookie = /session=[^;]+/.exec(page.headers.get("set-cookie") ?? "")?.[0] ?? "";
    const out = await request("/dashboard/api/sign-out", { method: "POST", headers: { cookie, "x-forwarded-proto": "https" } });
    expect(out.status).toBe(204);
    expect(secure(out)).toBe(true);
  });

  it("an error page for a signed-out visitor links to sign in, not to the dashboard (which would only send them there)", async () => {
    const res = await request("/dashboard/sign-in", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ email: "a@b.co", password: "x".repeat(300 * 1024) }),
    });
    expect(res.status).toBe(413);
    const html = await res.text();
    expect(html).toContain('<a href="/dashboard/sign-in">Go to sign in</a>');
    expect(html).not.toContain('href="/dashboard"');
  });

  it("answers a wrong password and an unknown email alike (401)", async () => {
    const ws = await createWorkspace();
    const wrong = await expectError(
      await request("/dashboard/api/sign-in", { method: "POST", json: { email: ws.admin.email, password: "nope" } }),
      401,
      "unauthorized",
    );
    const unknown = await expectError(
      await request("/dashboard/api/sign-in", { method: "POST", json: { email: "nobody@example.test", password: "nope" } }),
      401,
      "unauthorized",
    );
    expect(wrong.message).toBe(unknown.message);
  });

  it("validates the body: missing fields, wrong types, unknown fields, bad JSON, wrong content type, oversize", async () => {
    const post = (init: Parameters<typeof request>[1]) => request("/dashboard/api/sign-in", { method: "POST", ...init });
    const missing = await expectError(await post({ json: { email: "a@b.co" } }), 400, "validation_failed");
    expect(missing.issues?.[0]?.path).toBe("password");
    await expectError(await post({ json: { email: 42, password: "x" } }), 400, "validation_failed");
    const unknown = await expectError(await post({ json: { email: "a@b.co", password: "x", admin: true } }), 400, "validation_failed");
    expect(unknown.message).toContain("admin");
    await expectError(await post({ body: "{not json", headers: { "content-type": "application/json" } }), 400, "invalid_json");
    await expectError(
      await post({ body: "email=a@b.co&password=x", headers: { "content-type": "application/x-www-form-urlencoded" } }),
      415,
      "unsupported_media_type",
    );
    await expectError(await post({ json: { email: "a@b.co", password: "x".repeat(300 * 1024) } }), 413, "payload_too_large");
    await expectError(await post({}), 400, "validation_failed");
  });

  it("signs out: the cookie no longer works", async () => {
    const ws = await createWorkspace();
    const { cookie } = await signIn(ws.admin.email, ws.admin.password);
    expect((await request("/dashboard/api/session", { headers: { cookie } })).status).toBe(200);
    const out = await request("/dashboard/api/sign-out", { method: "POST", headers: { cookie } });
    expect(out.status).toBe(204);
    expect(out.headers.get("set-cookie")).toMatch(/session=;/);
    await expectError(await request("/dashboard/api/session", { headers: { cookie } }), 401, "unauthorized");
  });

  it("shows a member's role and lets the session token act on /v1 with x-organization-id", async () => {
    const ws = await createWorkspace();
    const member = await addMemberTo(ws, "member");
    const { cookie, token } = await signIn(member.email, member.password);
    const session = await json<SessionBody>(await request("/dashboard/api/session", { headers: { cookie } }));
    expect(session.organizations).toEqual([expect.objectContaining({ id: ws.organizationId, role: "member" })]);
    const me = await request("/v1/me", { headers: { authorization: `Bearer ${token}`, "x-organization-id": ws.organizationId } });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ authType: "session", role: "member", organizationId: ws.organizationId });
  });

  it("refuses a cookie-authenticated change from another site (CSRF)", async () => {
    const ws = await createWorkspace();
    const { cookie } = await signIn(ws.admin.email, ws.admin.password);
    const headers = { cookie, "x-organization-id": ws.organizationId };
    await expectError(
      await request("/dashboard/api/api-keys", {
        method: "POST",
        json: { name: "evil" },
        headers: { ...headers, origin: "https://evil.example" },
      }),
      403,
      "csrf_rejected",
    );
    await expectError(
      await request("/dashboard/api/api-keys", {
        method: "POST",
        json: { name: "evil" },
        headers: { ...headers, "sec-fetch-site": "cross-site" },
      }),
      403,
      "csrf_rejected",
    );
    const list = await json<Page<ApiKeyView>>(await request("/dashboard/api/api-keys", { headers }));
    expect(list.data.map((k) => k.name)).not.toContain("evil");
  });
});

describe("expired sessions", () => {
  it("refuses a session past its expiry on /v1 and on the dashboard (401)", async () => {
    const ws = await createWorkspace();
    const { cookie, token } = await signIn(ws.admin.email, ws.admin.password);
    await testDb()
      .update(sessions)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(sessions.tokenHash, await sha256Hex(token)));
    await expectError(await request("/dashboard/api/session", { headers: { cookie } }), 401, "unauthorized");
    await expectError(await request("/v1/me", { headers: { cookie } }), 401, "unauthorized");
    await expectError(
      await request("/v1/me", { headers: { authorization: `Bearer ${token}`, "x-organization-id": ws.organizationId } }),
      401,
      "unauthorized",
    );
  });
});
