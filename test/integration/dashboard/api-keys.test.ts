import { describe, expect, it } from "vitest";
import type { ApiKeyView } from "../../../src/api-keys/service";
import type { Page } from "../../../src/lib/pagination";
import { createWorkspace, expectError, json, request, signIn, type Workspace } from "../../support/harness";

type Created = { key: ApiKeyView; secret: string };

async function admin(ws: Workspace) {
  const { cookie } = await signIn(ws.admin.email, ws.admin.password);
  const headers = { cookie, "x-organization-id": ws.organizationId };
  return {
    create: (name: unknown) => request("/dashboard/api/api-keys", { method: "POST", json: { name }, headers }),
    list: (query = "") => request(`/dashboard/api/api-keys${query}`, { headers }),
    revoke: (id: string) => request(`/dashboard/api/api-keys/${id}/revoke`, { method: "POST", headers }),
  };
}

const me = (key: string) => request("/v1/me", { headers: { authorization: `Bearer ${key}` } });

describe("API keys in the dashboard", () => {
  it("creates a key whose secret is shown once and works at once", async () => {
    const ws = await createWorkspace();
    const dash = await admin(ws);
    const res = await dash.create("Backend 🚀");
    expect(res.status).toBe(201);
    const { key, secret } = await json<Created>(res);
    expect(secret).toMatch(/^sk-live-[0-9A-Za-z]{40}$/);
    expect(key).toMatchObject({ name: "Backend 🚀", active: true, lastUsedAt: null, revokedAt: null });
    expect(key.prefix).toBe(`${secret.slice(0, 16)}…`);
    expect((await me(secret)).status).toBe(200);

    const listed = await (await dash.list()).text();
    expect(listed).not.toContain(secret);
    expect(listed).not.toContain(secret.slice(16));
    const page = JSON.parse(listed) as Page<ApiKeyView>;
    expect(page.data.map((k) => k.id)).toContain(key.id);
  });

  it("records last-used after a request, off the response path", async () => {
    const ws = await createWorkspace();
    const dash = await admin(ws);
    const { key, secret } = await json<Created>(await dash.create("used"));
    expect((await me(secret)).status).toBe(200);
    let lastUsedAt: string | null = null;
    for (let i = 0; i < 50 && !lastUsedAt; i++) {
      const page = await json<Page<ApiKeyView>>(await dash.list());
      lastUsedAt = page.data.find((k) => k.id === key.id)?.lastUsedAt ?? null;
      if (!lastUsedAt) await new Promise((r) => setTimeout(r, 100));
    }
    expect(lastUsedAt).not.toBeNull();
    expect(Date.parse(lastUsedAt as string)).toBeGreaterThan(Date.parse(key.createdAt) - 1000);
  });

  it("revokes: the very next request with the key is 401; revoking again is 409; state shows revoked", async () => {
    const ws = await createWorkspace();
    const dash = await admin(ws);
    const { key, secret } = await json<Created>(await dash.create("to revoke"));
    expect((await me(secret)).status).toBe(200);
    const revoked = await dash.revoke(key.id);
    expect(revoked.status).toBe(200);
    expect(await json<ApiKeyView>(revoked)).toMatchObject({ id: key.id, active: false });
    await expectError(await me(secret), 401, "unauthorized");
    await expectError(await dash.revoke(key.id), 409, "conflict");
    const page = await json<Page<ApiKeyView>>(await dash.list());
    expect(page.data.find((k) => k.id === key.id)).toMatchObject({ active: false, revokedAt: expect.any(String) });
  });

  it("pages through keys newest first", async () => {
    const ws = await createWorkspace();
    const dash = await admin(ws);
    for (const n of ["a", "b", "c", "d"]) expect((await dash.create(n)).status).toBe(201);
    const first = await json<Page<ApiKeyView>>(await dash.list("?limit=2"));
    expect(first.data.map((k) => k.name)).toEqual(["d", "c"]);
    expect(first.hasMore).toBe(true);
    const second = await json<Page<ApiKeyView>>(await dash.list(`?limit=2&cursor=${first.nextCursor}`));
    expect(second.data.map((k) => k.name)).toEqual(["b", "a"]);
    const third = await json<Page<ApiKeyView>>(await dash.list(`?limit=2&cursor=${second.nextCursor}`));
    expect(third.data.map((k) => k.name)).toEqual(["test"]);
    expect(third).toMatchObject({ hasMore: false, nextCursor: null });
    await expectError(await dash.list("?limit=0"), 400, "validation_failed");
    await expectError(await dash.list("?cursor=garbage"), 400, "bad_request");
  });

  it("validates the key name", async () => {
    const dash = await admin(await createWorkspace());
    await expectError(await dash.create(""), 400, "validation_failed");
    await expectError(await dash.create("   "), 400, "validation_failed");
    await expectError(await dash.create(7), 400, "validation_failed");
    await expectError(await dash.create("x".repeat(101)), 400, "validation_failed");
    await expectError(await request("/dashboard/api/api-keys/not-a-uuid/revoke", { method: "POST" }), 401, "unauthorized");
  });

  it("refuses an invalid id in the path (400) once authenticated", async () => {
    const dash = await admin(await createWorkspace());
    await expectError(await dash.revoke("not-a-uuid"), 400, "validation_failed");
  });
});
