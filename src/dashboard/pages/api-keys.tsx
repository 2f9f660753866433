/** @jsxImportSource hono/jsx */
// API Keys (admins only; spec: Authentication 5): create with a Key Name, the secret shown once,
// the list (masked prefix, created, last used, state), revoke with a confirmation.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { createApiKey, listApiKeys, revokeApiKey } from "../../api-keys/service";
import type { AppEnv } from "../../context";
import { ApiError } from "../../lib/errors";
import { isUuid } from "../../lib/ids";
import { pageQuery } from "../../lib/pagination";
import { redisFor } from "../../lib/redis";
import { createApiKeySchema } from "../api/api-keys";
import { apiErrorFields, one, validate } from "./forms";
import { requireAdminPage } from "./session";
import { Csrf, ErrorSummary, type FieldErrors, Flash, Layout, Secret, shellOf, TextField, When } from "./ui";

async function render(
  c: Context<AppEnv>,
  extra: { created?: { name: string; secret: string }; errors?: FieldErrors; name?: string; notice?: string } = {},
  status: 200 | 201 | 400 = 200,
) {
  const shell = await shellOf(c, "API Keys", "api-keys");
  const keys = await listApiKeys(c.var.db, c.var.auth.organizationId, pageQuery({ limit: 100 }), redisFor(c.var.config));
  return c.html(
    <Layout shell={shell}>
      {extra.created ? (
        <Secret
          id="new-key"
          value={extra.created.secret}
          warning={`Key "${extra.created.name}" created. Copy it now: this is the only time the full key is shown. Store it in your secret manager.`}
        />
      ) : null}
      {extra.notice ? <Flash>{extra.notice}</Flash> : null}
      <div class="card">
        <h2 class="mt0">Create a key</h2>
        <ErrorSummary errors={extra.errors} />
        <form method="post" action="/dashboard/api-keys" class="row" novalidate>
          <Csrf token={shell.csrf} />
          <div class="grow">
            <TextField
              name="name"
              label="Key Name"
              value={extra.name}
              errors={extra.errors}
              hint="For example: Production backend"
              required
            />
          </div>
          <button class="end" type="submit">
            Create key
          </button>
        </form>
        <p class="hint">
          Rotation: create a new key, deploy it, then revoke the old one. The old key's “last used” tells you when nothing uses it any more.
          Keys act as workspace admins on the whole /v1 API.
        </p>
      </div>
      <div class="card table-wrap" tabindex={0}>
        <table>
          <caption class="muted small left">
            {keys.data.length} key{keys.data.length === 1 ? "" : "s"}
          </caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Key</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">State</th>
              <th scope="col">
                <span class="muted">Action</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keys.data.map((k) => (
              <tr>
                <td>{k.name}</td>
                <td class="mono">{k.prefix}</td>
                <td>
                  <When at={k.createdAt} />
                </td>
                <td>{k.lastUsedAt ? <When at={k.lastUsedAt} /> : "never"}</td>
                <td>
                  {k.active ? (
                    <span class="badge good">active</span>
                  ) : (
                    <span class="badge off">
                      revoked <When at={k.revokedAt} />
                    </span>
                  )}
                </td>
                <td>
                  {k.active ? (
                    <form
                      method="post"
                      action={`/dashboard/api-keys/${k.id}/revoke`}
                      data-confirm={`Revoke "${k.name}"? Requests with it fail at once; this cannot be undone.`}
                    >
                      <Csrf token={shell.csrf} />
                      <button type="submit" class="danger" aria-label={`Revoke ${k.name}`}>
                        Revoke
                      </button>
                    </form>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Layout>,
    status,
  );
}

export function registerApiKeyPages(app: OpenAPIHono<AppEnv>): void {
  app.get("/dashboard/api-keys", (c) => {
    requireAdminPage(c, false);
    return render(c);
  });

  app.post("/dashboard/api-keys", async (c) => {
    requireAdminPage(c, true);
    const name = one(c.var.form, "name");
    const checked = validate(createApiKeySchema, { name });
    if (!checked.ok) return render(c, { errors: checked.errors, name }, 400);
    const { secret } = await createApiKey(c.var.db, {
      organizationId: c.var.auth.organizationId,
      name: checked.data.name,
      createdByUserId: c.var.auth.user?.id ?? null,
    });
    // The secret is rendered in this response only (no redirect: it must never sit in a URL or a cookie).
    c.header("Cache-Control", "no-store");
    return render(c, { created: { name: checked.data.name, secret } }, 201);
  });

  app.post("/dashboard/api-keys/:id/revoke", async (c) => {
    requireAdminPage(c, true);
    const id = c.req.param("id");
    if (!isUuid(id)) throw new ApiError("not_found", "No API key with that id in this workspace.");
    try {
      const key = await revokeApiKey(c.var.db, redisFor(c.var.config), c.var.auth.organizationId, id);
      return render(c, { notice: `Key "${key.name}" revoked.` });
    } catch (err) {
      if (err instanceof ApiError && err.code === "conflict") return render(c, { errors: apiErrorFields(err) }, 400);
      throw err;
    }
  });
}
