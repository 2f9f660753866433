/** @jsxImportSource hono/jsx */
// What the API key pages share: the one page (the list, with the create form, a new key's secret
// or a notice), rendered after every operation.
import type { Context } from "hono";
import { listApiKeys } from "../../../api-keys/service";
import type { AppEnv } from "../../../context";
import { ApiKeys, type ApiKeysProps } from "../../../dashboard/api-keys/views";
import { shellOf } from "../../../dashboard/ui";
import { pageQuery } from "../../../db/pagination";
import { redisFor } from "../../../lib/redis";

export async function render(c: Context<AppEnv>, extra: Omit<ApiKeysProps, "shell" | "keys"> = {}, status: 200 | 201 | 400 = 200) {
  const shell = await shellOf(c, "API Keys", "api-keys");
  const keys = await listApiKeys({ ctx: { ...c.var.ctx, redis: redisFor(c.var.config) }, input: pageQuery({ limit: 100 }) });
  return c.html(<ApiKeys shell={shell} keys={keys.data} {...extra} />, status);
}
