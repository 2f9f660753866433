import type { OpenAPIHono } from "@hono/zod-openapi";
import { createApiKey } from "../../../api-keys/service";
import type { AppEnv } from "../../../context";
import { one, validate } from "../../../dashboard/forms";
import { createApiKeySchema } from "../../dashboard-api/api-keys/shared";
import { render } from "./shared";

/** POST /dashboard/api-keys: a new key, its secret shown in this response only. */
export const registerCreateApiKeyPage = (app: OpenAPIHono<AppEnv>) =>
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
