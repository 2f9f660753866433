// The rules of an agent's tools that need more than the request body (docs/tools.md): each
// function tool's URL passes the webhook URL guard when saved (the same checks, DNS included;
// again before every call), and an agent that is given function tools has a signing secret.
// Each takes one `{ ctx, input }` (src/services.ts) whose context is only the configuration.
import type { AgentTool } from "../db/schema";
import type { AppConfig } from "../env";
import { ApiError } from "../lib/errors";
import type { Op } from "../services";
import { checkUrl, checkUrlAtSave, dohResolver, SAVE_DNS_TIMEOUT_MS } from "../webhooks/ssrf";
import { newToolSecret, openToolSecret, sealToolSecret } from "./secret";

export type ToolConfig = Pick<AppConfig, "WEBHOOKS_ALLOW_PRIVATE_URLS" | "DNS_RESOLVER_URL" | "SECRETS_KEK">;

/**
 * Refuses (400 validation_failed, naming `tools.<i>.url`) a function tool whose URL the webhook
 * guard refuses: scheme, port, credentials, internal names, literal non-public addresses, and
 * names that resolve to them. A lookup that fails or finds nothing is let through: the full check
 * runs again before every call.
 */
export async function checkToolUrls({ ctx: { config }, input: { tools } }: Op<{ tools: readonly AgentTool[] }, "config">): Promise<void> {
  const issues: Array<{ path: string; message: string }> = [];
  const resolver = dohResolver(config.DNS_RESOLVER_URL, SAVE_DNS_TIMEOUT_MS);
  await Promise.all(
    tools.map(async (tool, i) => {
      if (tool.type !== "function") return;
      const shape = checkUrl(tool.url, config.WEBHOOKS_ALLOW_PRIVATE_URLS);
      const verdict = shape.ok ? await checkUrlAtSave(tool.url, config.WEBHOOKS_ALLOW_PRIVATE_URLS, resolver) : shape;
      if (!verdict.ok) issues.push({ path: `tools.${i}.url`, message: `the URL ${verdict.reason}` });
    }),
  );
  if (issues.length === 0) return;
  issues.sort((a, b) => a.path.localeCompare(b.path, "en", { numeric: true }));
  throw new ApiError("validation_failed", `Invalid json: ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`, { issues });
}

/** A new secret for the agent `agentId`: in clear (to show once) and sealed (to store). */
export async function mintToolSecret({
  ctx: { config },
  input: { agentId },
}: Op<{ agentId: string }, "config">): Promise<{ plain: string; sealed: string }> {
  const plain = newToolSecret();
  return { plain, sealed: await sealToolSecret(config, agentId, plain) };
}

/** The agent's signing secret in clear, or null when it has none yet. */
export const openToolSecretOf = ({
  ctx: { config },
  input: agent,
}: Op<{ id: string; toolSecret: string | null }, "config">): Promise<string | null> =>
  agent.toolSecret === null ? Promise.resolve(null) : openToolSecret(config, agent.id, agent.toolSecret);
