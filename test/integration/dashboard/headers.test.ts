// Every dashboard page (each `page` route of test/support/routes.ts, GET and POST, and the sign-in page)
// answers with a nonce-based Content-Security-Policy: a fresh nonce per response, carried by every
// <script> and <style> of the page, no 'unsafe-inline'; signed-in pages are never cached.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { csrfToken } from "../../../src/dashboard/session";
import { createWorkspace, request, signIn } from "../../support/harness";
import { type Params, ROUTES } from "../../support/routes";

const fill = (path: string, params: Params) => path.replace(/:(\w+)/g, (_, name: string) => params[name] ?? randomUUID());

/** The CSP's directives by name. */
const directives = (csp: string) =>
  new Map(
    csp
      .split(";")
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...values]) => [name as string, values]),
  );

/** Asserts the page's policy and returns its nonce. */
function expectCsp(res: Response, html: string): string {
  const csp = res.headers.get("content-security-policy") ?? "";
  expect(csp, "Content-Security-Policy").not.toBe("");
  expect(csp).not.toContain("unsafe-inline");
  expect(csp).not.toContain("unsafe-eval");
  const d = directives(csp);
  const nonce = /^'nonce-([A-Za-z0-9+/=]{22,})'$/.exec(d.get("script-src")?.[0] ?? "")?.[1];
  expect(nonce, `script-src of ${csp}`).toBeTruthy();
  expect(d.get("script-src")).toEqual([`'nonce-${nonce}'`]);
  expect(d.get("style-src")).toEqual([`'nonce-${nonce}'`]);
  expect(d.get("default-src")).toEqual(["'self'"]);
  expect(d.get("object-src")).toEqual(["'none'"]);
  expect(d.get("base-uri")).toEqual(["'none'"]);
  expect(d.get("form-action")).toEqual(["'self'"]);
  expect(d.get("frame-ancestors")).toEqual(["'none'"]);
  // Every inline script and style carries this response's nonce; nothing runs from attributes.
  for (const tag of html.match(/<(script|style)\b[^>]*>/g) ?? []) expect(tag).toContain(` nonce="${nonce}"`);
  expect(html).not.toMatch(/\son[a-z]+=/i);
  expect(html).not.toMatch(/\sstyle="/);
  return nonce as string;
}

/** A workspace with its admin signed in to the dashboard. */
async function signedIn(name: string) {
  const ws = await createWorkspace(name);
  const session = await signIn(ws.admin.email, ws.admin.password);
  return { ws, cookie: session.cookie, csrf: await csrfToken(session.token) };
}

describe("dashboard pages: Content-Security-Policy and caching", () => {
  const pages = ROUTES.filter((r) => r.auth === "page");
  // Each route in its own workspace: signing out, revoking the key and the like touch no other.
  it.each(pages)("$method $path: a fresh nonce per response, on every script and style; no-store", async (route) => {
    const { ws, cookie, csrf } = await signedIn("Headers workspace");
    const params = route.resource ? await route.resource(ws) : {};
    const send = () => {
      const body = route.method === "POST" ? new URLSearchParams({ ...(route.fields ?? {}), _csrf: csrf }) : undefined;
      return request(fill(route.path, params), {
        method: route.method,
        headers: { cookie, ...(body ? { "content-type": "application/x-www-form-urlencoded" } : {}) },
        body,
      });
    };
    const first = await send();
    expect(first.status, await first.clone().text()).toBeLessThan(500);
    expect(first.headers.get("cache-control")).toContain("no-store");
    if (!(first.headers.get("content-type") ?? "").startsWith("text/html")) return; // a redirect or the recording's audio
    const nonce = expectCsp(first, await first.text());
    if (route.method === "GET") {
      const again = await send();
      expect(expectCsp(again, await again.text())).not.toBe(nonce);
    }
  });

  it("the sign-in page, its errors and the error pages carry the policy too", async () => {
    const signInPage = await request("/dashboard/sign-in");
    expect(signInPage.status).toBe(200);
    const a = expectCsp(signInPage, await signInPage.text());
    const refused = await request("/dashboard/sign-in", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ email: "not an email", password: "" }),
    });
    expect(refused.status).toBe(400);
    expect(expectCsp(refused, await refused.text())).not.toBe(a);
    const { cookie } = await signedIn("Headers errors");
    const missing = await request(`/dashboard/agents/${randomUUID()}`, { headers: { cookie } });
    expect(missing.status).toBe(404);
    expectCsp(missing, await missing.text());
    expect(missing.headers.get("cache-control")).toContain("no-store");
  });

  it("the JSON API keeps its own headers (no page policy on /v1)", async () => {
    const res = await (await createWorkspace("Headers API")).api("/v1/me");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toBeNull();
  });
});
