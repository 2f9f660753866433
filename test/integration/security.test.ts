// The shared security suite: every route of test/support/routes.ts, every credential failure.
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { csrfToken } from "../../src/dashboard/session";
import { addMemberTo, createWorkspace, expectError, request, revokedKey, signIn, type Workspace } from "../support/harness";
import { type Params, ROUTES, type RouteCase } from "../support/routes";

/** Fills `:name` parameters from `params`, and any other with a fresh UUID (a missing resource). */
const fill = (path: string, params: Params) => path.replace(/:(\w+)/g, (_, name: string) => params[name] ?? randomUUID());
const call = (route: RouteCase, params: Params, headers: Record<string, string>) =>
  request(fill(route.path, { ...route.params, ...params }), {
    method: route.method,
    headers,
    ...(route.body !== undefined ? { json: route.body } : {}),
    ...(route.form ? { body: route.form() } : {}),
  });

let owner: Workspace;
let other: Workspace;
let revoked: string;
let memberCookie: string;
let memberOrg: string;

beforeAll(async () => {
  [owner, other] = await Promise.all([createWorkspace("owner"), createWorkspace("other")]);
  revoked = await revokedKey(owner);
  const member = await addMemberTo(owner, "member");
  memberCookie = (await signIn(member.email, member.password)).cookie;
  memberOrg = owner.organizationId;
});

const guarded = ROUTES.filter((r) => r.auth !== "public" && r.auth !== "page");

describe.each(guarded)("$method $path", (route) => {
  const id: Params = {};

  it("refuses a request without credentials (401)", async () => {
    await expectError(await call(route, id, {}), 401, "unauthorized");
  });

  it("refuses a malformed Authorization header (401)", async () => {
    await expectError(await call(route, id, { authorization: "Token abc" }), 401, "unauthorized");
    await expectError(await call(route, id, { authorization: "Bearer not-a-key" }), 401, "unauthorized");
  });

  it("refuses an unknown key (401)", async () => {
    await expectError(await call(route, id, { authorization: `Bearer sk-live-${"x".repeat(40)}` }), 401, "unauthorized");
  });

  it("refuses a revoked key (401)", async () => {
    await expectError(await call(route, id, { authorization: `Bearer ${revoked}` }), 401, "unauthorized");
  });

  it("refuses an unknown session cookie (401)", async () => {
    await expectError(await call(route, id, { cookie: `session=sess_${"A".repeat(40)}` }), 401, "unauthorized");
  });

  if (route.auth === "session") {
    it("refuses a valid API key: dashboard routes are session-only (401)", async () => {
      await expectError(await call(route, id, { authorization: `Bearer ${owner.apiKey}` }), 401, "unauthorized");
    });
  }

  if (route.permission) {
    it(`refuses a member without ${route.permission} (403)`, async () => {
      const res = await call(route, id, { cookie: memberCookie, "x-organization-id": memberOrg });
      const body = await expectError(res, 403, "forbidden");
      expect(body.message).toContain(route.permission);
    });
  }

  if (route.resource) {
    const make = route.resource;
    it("answers another workspace's id exactly like a missing one (404)", async () => {
      const ws = await createWorkspace("tenant-a");
      const theirs = await make(ws);
      const as = async (target: Params) => {
        if (route.auth === "session") {
          const { cookie } = await signIn(other.admin.email, other.admin.password);
          return call(route, target, { cookie, "x-organization-id": other.organizationId });
        }
        return call(route, target, { authorization: `Bearer ${other.apiKey}` });
      };
      const foreign = await expectError(await as(theirs), 404, "not_found");
      const missing = await expectError(await as({}), 404, "not_found");
      expect({ ...foreign, requestId: "" }).toEqual({ ...missing, requestId: "" });
    });
  }
});

describe("session organization header", () => {
  it("refuses a session naming an organization the user is not a member of (403)", async () => {
    const { cookie } = await signIn(owner.admin.email, owner.admin.password);
    const res = await request("/v1/me", { headers: { cookie, "x-organization-id": other.organizationId } });
    await expectError(res, 403, "forbidden");
  });

  it("refuses a session on /v1 routes other than /v1/me without x-organization-id (400)", async () => {
    const { cookie } = await signIn(owner.admin.email, owner.admin.password);
    await expectError(await request("/v1/agents", { headers: { cookie } }), 400, "bad_request");
    expect((await request("/v1/agents", { headers: { cookie, "x-organization-id": owner.organizationId } })).status).toBe(200);
  });
});

describe("public routes", () => {
  it.each(ROUTES.filter((r) => r.auth === "public"))("$method $path says what it may reach", (route) => {
    expect(route.why, "a public route must say what it may reach").toBeTruthy();
  });
});

// Dashboard pages: only the session cookie signs in; anything else is sent to the sign-in page.
// POSTs carry the CSRF token of the session (the suite computes it as the page would).
describe.each(ROUTES.filter((r) => r.auth === "page"))("page $method $path", (route) => {
  const page = async (params: Params, headers: Record<string, string>, csrf?: string) => {
    const body = route.method === "POST" ? new URLSearchParams({ ...(route.fields ?? {}), ...(csrf ? { _csrf: csrf } : {}) }) : undefined;
    return request(fill(route.path, params), {
      method: route.method,
      headers: { ...headers, ...(body ? { "content-type": "application/x-www-form-urlencoded" } : {}) },
      body,
    });
  };
  const toSignIn = (res: Response) => {
    expect(res.status).toBe(303);
    expect(res.headers.get("location") ?? "").toMatch(/^\/dashboard\/sign-in/);
  };

  it("sends a request without a session to the sign-in page", async () => {
    toSignIn(await page({}, {}));
  });

  it("does not sign in with API keys (valid, revoked, malformed) or an unknown session cookie", async () => {
    toSignIn(await page({}, { authorization: `Bearer ${owner.apiKey}` }));
    toSignIn(await page({}, { authorization: `Bearer ${revoked}` }));
    toSignIn(await page({}, { authorization: "Token abc" }));
    toSignIn(await page({}, { cookie: `session=sess_${"A".repeat(40)}` }));
  });

  if (route.method === "POST") {
    it("refuses a post without the session's CSRF token, or from another site (403)", async () => {
      const { cookie, token } = await signIn(owner.admin.email, owner.admin.password);
      expect((await page({}, { cookie })).status).toBe(403);
      expect((await page({}, { cookie }, "forged-token")).status).toBe(403);
      const crossSite = await page({}, { cookie, origin: "https://evil.example" }, await csrfToken(token));
      expect(crossSite.status).toBe(403);
    });
  }

  if (route.permission) {
    it(`answers a member without ${route.permission} with the admin-required page (403)`, async () => {
      const member = await addMemberTo(owner, "member");
      const { cookie, token } = await signIn(member.email, member.password);
      const res = await page({}, { cookie }, await csrfToken(token));
      expect(res.status).toBe(403);
      expect(await res.text()).toContain("Admin access required");
    });
  }

  if (route.resource) {
    const make = route.resource;
    it("answers another workspace's id exactly like a missing one (404 page)", async () => {
      const ws = await createWorkspace("tenant-a");
      const theirs = await make(ws);
      const { cookie, token } = await signIn(other.admin.email, other.admin.password);
      const csrf = await csrfToken(token);
      const foreign = await page(theirs, { cookie }, csrf);
      const missing = await page({}, { cookie }, csrf);
      expect(foreign.status).toBe(404);
      expect(missing.status).toBe(404);
      // (the same page but for its CSP nonce, fresh in every response; a script action's JSON error
      // body but for its request id)
      const withoutNonce = async (res: Response) => (await res.text()).replace(/ nonce="[^"]+"/g, "").replace(/"requestId":"[^"]*"/g, "");
      expect(await withoutNonce(foreign)).toBe(await withoutNonce(missing));
    });
  }
});
