import { describe, expect, it } from "vitest";
import { createWorkspace, expectError, request, signIn } from "../support/harness";

describe("GET /v1/me", () => {
  it("returns the identity of an API key", async () => {
    const ws = await createWorkspace();
    const res = await ws.api("/v1/me");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      authenticated: true,
      authType: "api_key",
      organizationId: ws.organizationId,
      user: { id: ws.admin.id, email: ws.admin.email },
      role: "admin",
    });
  });

  it("accepts the dashboard session cookie", async () => {
    const ws = await createWorkspace();
    const { cookie } = await signIn(ws.admin.email, ws.admin.password);
    const res = await request("/v1/me", { headers: { cookie } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ authType: "session", organizationId: ws.organizationId, user: { email: ws.admin.email } });
  });

  it("answers 401 in the spec's body without a key", async () => {
    const res = await request("/v1/me");
    const body = await expectError(res, 401, "unauthorized");
    expect(body.error).toBe("Unauthorized");
  });
});
