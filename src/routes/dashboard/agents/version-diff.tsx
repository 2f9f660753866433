/** @jsxImportSource hono/jsx */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import { getAgent } from "../../../agents/service";
import { diffAgentVersions, listAgentVersions } from "../../../agents/versions";
import type { AppEnv } from "../../../context";
import { VersionDiffPage } from "../../../dashboard/agents/version-diff";
import { shellOf } from "../../../dashboard/ui";
import { invalidInput } from "../../../lib/errors";

/** The versions the pickers offer (the agent page lists as many). */
const VERSIONS_SHOWN = 50;

const version = z.coerce.number({ message: "must be a version number" }).int().min(1).max(2_147_483_647).optional();
const query = z.object({ from: version, to: version });

/**
 * GET /dashboard/agents/:id/versions/diff?from=&to=: two versions compared, through the API's diff
 * (agents/versions.ts). `to` defaults to the newest version, `from` to the one before `to`. A
 * number that is not one is a 400 page; an unknown version, or another workspace's agent, the 404 page.
 */
export const registerAgentVersionDiffPage = (app: OpenAPIHono<AppEnv>) =>
  app.get("/:id/versions/diff", async (c) => {
    const ctx = c.var.ctx;
    const agentId = c.req.param("id");
    const agent = await getAgent({ ctx, input: { id: agentId } });
    const checked = query.safeParse({ from: c.req.query("from") || undefined, to: c.req.query("to") || undefined });
    if (!checked.success) throw invalidInput("query", checked.error.issues);
    const to = checked.data.to ?? agent.latestVersion;
    const from = checked.data.from ?? Math.max(1, to - 1);
    const [diff, { page }, shell] = await Promise.all([
      diffAgentVersions({ ctx, input: { agentId, from, to } }),
      listAgentVersions({ ctx, input: { agentId, limit: VERSIONS_SHOWN } }),
      shellOf(c, `Versions of ${agent.name}: ${from} → ${to}`, "agents"),
    ]);
    // A version older than the pickers' list is still offered, so the form shows what it compares.
    const listed = page.data.map((v) => v.version);
    const versions = [
      ...page.data,
      ...[from, to]
        .filter((n, i, all) => !listed.includes(n) && all.indexOf(n) === i)
        .map((n) => ({ version: n }) as (typeof page.data)[number]),
    ];
    return c.html(<VersionDiffPage shell={shell} agent={agent} versions={versions} diff={diff} />);
  });
