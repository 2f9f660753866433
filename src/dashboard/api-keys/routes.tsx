/** @jsxImportSource hono/jsx */
// API Keys (admins only; spec: Authentication 5), under /dashboard/api-keys: create with a Key
// Name, the secret shown once, the list, revoke. The API's schema and the keys service.
import type { Context } from "hono";
import { createApiKey, listApiKeys, revokeApiKey } from "../../api-keys/service";
import type { AppEnv } from "../../context";
import { pageQuery } from "../../db/pagination";
import { ApiError } from "../../lib/errors";
import { isUuid } from "../../lib/ids";
import { redisFor } from "../../lib/redis";
import { createApiKeySchema } from "../../routes/dashboard-api/api-keys";
import { apiErrorFields, one, validate } from "../forms";
import { adminOnly, screenRouter } from "../routers";
import { shellOf } from "../ui";
import { ApiKeys, type ApiKeysProps } from "./views";

async function render(c: Context<AppEnv>, extra: Omit<ApiKeysProps, "shell" | "keys"> = {}, status: 200 | 201 | 400 = 200) {
  const shell = await shellOf(c, "API Keys", "api-keys");
  const keys = await listApiKeys({ ctx: { ...c.var.ctx, redis: redisFor(c.var.config) }, input: pageQuery({ limit: 100 }) });
  return c.html(<ApiKeys shell={shell} keys={keys.data} {...extra} />, status);
}

export function apiKeyPages() {
  const app = screenRouter(adminOnly);

  app.get("/", (c) => render(c));

  app.post("/", async (c) => {
    const name = one(c.var.form, "name");
    const checked = validate(createApiKeySchema, { name });
    if (!checked.ok) return render(c, { errors: checked.errors, name }, 400);
    const { secret } = await createApiKey({
      ctx: c.var.ctx,
      input: { name: checked.data.name, createdByUserId: c.var.auth.user?.id ?? null },
    });
    // The secret is rendered in this response only (no redirect: it must never sit in a URL or a cookie).
    c.header("Cache-Control", "no-store");
    return render(c, { created: { name: checked.data.name, secret } }, 201);
  });

  app.post("/:id/revoke", async (c) => {
    const id = c.req.param("id");
    if (!isUuid(id)) throw new ApiError("not_found", "No API key with that id in this workspace.");
    try {
      const key = await revokeApiKey({ ctx: { ...c.var.ctx, redis: redisFor(c.var.config) }, input: { id } });
      return render(c, { notice: `Key "${key.name}" revoked.` });
    } catch (err) {
      if (err instanceof ApiError && err.code === "conflict") return render(c, { errors: apiErrorFields(err) }, 400);
      throw err;
    }
  });

  return app;
}
