// Agents' tool secrets at rest (docs/tools.md, docs/secrets.md): sealed with SECRETS_KEK like
// webhook secrets, and covered by `npm run admin -- secrets status` and `secrets reseal`. A secret
// sealed under the old key is re-sealed with the new one, after which a worker holding only the
// new key signs with the very secret the agent was given (the customer's verifier accepts it); a
// legacy plaintext one works until reseal seals it; a channel's credentials are re-sealed too; a
// wrong key stops the run before it writes anything. One more worker on the same stack: the new
// key alone, as SECRETS_KEK is once the old key is dropped.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startWorker } from "../../../dev/stack";
import { agents, messagingChannels } from "../../../src/db/schema";
import { Keyring, openSecret } from "../../../src/lib/secrets";
import { openToolSecret } from "../../../src/tools/secret";
import { createWorkspace, expectError, json, stack, testDb, type Workspace } from "../../support/harness";
import { connectTelegram } from "../../support/messaging";
import { runAdmin, runAdminJson } from "../../support/process";
import { agentWithTools, startToolServer, type ToolServer } from "../../support/tools";
import { createWidget, visitor, widgetRequest } from "../../support/widgets";

const dataDir = mkdtempSync(join(tmpdir(), "tool-secrets-cli-"));
const stackKek = () => stack().vars.SECRETS_KEK as string;
const stackKid = () => stackKek().split(":")[0] as string;
const newKey = `next:${randomBytes(32).toString("base64")}`;
const rotatedSpec = () => `${newKey},${stackKek()}`;
const SEALED = (kid: string) => new RegExp(`^v1:${kid}:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]{70,}$`);

let newOnly: Awaited<ReturnType<typeof startWorker>>;
beforeAll(async () => {
  newOnly = await startWorker({ ...stack().vars, SECRETS_KEK: newKey });
}, 120_000);
afterAll(async () => {
  await newOnly?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const servers: ToolServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

const cliEnv = (kek: string): NodeJS.ProcessEnv => ({
  ...process.env,
  DATABASE_URL: stack().databaseUrl,
  DATA_DIR: dataDir,
  SECRETS_KEK: kek,
});
const adminJson = <T>(args: string[], kek: string) => runAdminJson<T>(args, cliEnv(kek));
type Counts = { sealed: number; resealed: number; current: number; skipped: number };
type Reseal = Counts & { kid: string; columns: Record<string, Counts> };
type Status = { current: string; usage: Record<string, number>; columns: Record<string, Record<string, number>> };
const reseal = (ws: Workspace, kek: string) => adminJson<Reseal>(["secrets", "reseal", "--org", ws.organizationId], kek);
const status = (ws: Workspace, kek: string) => adminJson<Status>(["secrets", "status", "--org", ws.organizationId], kek);

const storedToolSecret = async (agentId: string) => {
  const [row] = await testDb().select({ toolSecret: agents.toolSecret }).from(agents).where(eq(agents.id, agentId));
  return row?.toolSecret ?? null;
};

async function setup() {
  const ws = await createWorkspace();
  const server = await startToolServer();
  servers.push(server);
  const res = await ws.api("/v1/agents", { method: "POST", json: agentWithTools(server.url) });
  expect(res.status, await res.clone().text()).toBe(201);
  const agent = await json<{ id: string; toolSecret: string }>(res);
  server.secret = agent.toolSecret;
  const widget = await createWidget(ws, { agentId: agent.id });
  return { ws, server, agent, widget };
}

/** A widget chat message on a worker: the visitor asks for the order tool. */
async function askForOrder(base: string, token: string) {
  const res = await widgetRequest("/widget/v1/chat", { base, token, json: { visitorId: visitor(), message: "lookup order 42 please" } });
  expect(res.status, await res.clone().text()).toBe(200);
  return json<{ reply: { text: string } }>(res);
}

describe("agents' tool secrets and `secrets reseal`", () => {
  it("an old-key secret is re-sealed with the new key; a worker holding only the new key then signs with the same secret", async () => {
    const { ws, server, agent, widget } = await setup();
    const before = await storedToolSecret(agent.id);
    expect(before).toMatch(SEALED(stackKid()));
    expect(before).not.toContain(agent.toolSecret.slice(4));

    // Without the old key the secret does not open: the agent cannot be read, its tool is not called.
    const refused = await expectError(
      await fetch(`${newOnly.baseUrl}/v1/agents/${agent.id}`, { headers: { authorization: `Bearer ${ws.apiKey}` } }),
      500,
      "misconfigured",
    );
    expect(refused.message).toContain(`A stored secret (agents.tool_secret) is sealed with key id "${stackKid()}"`);
    expect(JSON.stringify(refused)).not.toContain(agent.toolSecret);
    const unsent = await askForOrder(newOnly.baseUrl, widget.token);
    expect(unsent.reply.text).toContain("Sorry, the order system is not answering.");
    expect(server.requests).toHaveLength(0);

    // The key report counts it, and reseal moves it to the new key.
    expect((await status(ws, rotatedSpec())).columns["agents.tool_secret"]).toEqual({ [stackKid()]: 1 });
    const report = await reseal(ws, rotatedSpec());
    expect(report).toMatchObject({ kid: "next", resealed: 1, sealed: 0, current: 0, skipped: 0 });
    expect(report.columns["agents.tool_secret"]).toEqual({ sealed: 0, resealed: 1, current: 0, skipped: 0 });
    const after = await storedToolSecret(agent.id);
    expect(after).toMatch(SEALED("next"));
    expect(after).not.toBe(before);
    expect(await openToolSecret({ SECRETS_KEK: new Keyring(newKey) }, agent.id, after as string)).toBe(agent.toolSecret);
    expect(await status(ws, rotatedSpec())).toMatchObject({ usage: { next: 1 }, columns: { "agents.tool_secret": { next: 1 } } });

    // The worker without the old key signs the next tool request with the secret the agent was given.
    const answered = await askForOrder(newOnly.baseUrl, widget.token);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({ verified: true, status: 200 });
    expect(answered.reply.text).toMatch(/The tool lookup_order returned: \{"status":"shipped"/);
    const read = await json<{ toolSecret: string }>(
      await fetch(`${newOnly.baseUrl}/v1/agents/${agent.id}`, { headers: { authorization: `Bearer ${ws.apiKey}` } }),
    );
    expect(read.toolSecret).toBe(`tss_...${agent.toolSecret.slice(-6)}`);
    // Run again: nothing left to do.
    expect((await reseal(ws, rotatedSpec())).columns["agents.tool_secret"]).toEqual({ sealed: 0, resealed: 0, current: 1, skipped: 0 });
  });

  it("a plaintext tool secret (a row from before sealing) signs as is until reseal seals it", async () => {
    const { ws, server, agent, widget } = await setup();
    await testDb().update(agents).set({ toolSecret: agent.toolSecret }).where(eq(agents.id, agent.id));
    await askForOrder(stack().baseUrl, widget.token);
    expect(server.requests[0]?.verified).toBe(true);
    expect((await status(ws, stackKek())).columns["agents.tool_secret"]).toEqual({ plaintext: 1 });

    const report = await reseal(ws, stackKek());
    expect(report.columns["agents.tool_secret"]).toEqual({ sealed: 1, resealed: 0, current: 0, skipped: 0 });
    expect(await storedToolSecret(agent.id)).toMatch(SEALED(stackKid()));
    await askForOrder(stack().baseUrl, widget.token);
    expect(server.requests[1]?.verified).toBe(true);
  });

  it("re-seals a messaging channel's credentials with the rest", async () => {
    const ws = await createWorkspace();
    const { channel } = await connectTelegram(ws);
    const [row] = await testDb().select().from(messagingChannels).where(eq(messagingChannels.id, channel.id));
    expect(row?.credentials).toMatch(SEALED(stackKid()));
    const report = await reseal(ws, rotatedSpec());
    // The channel's credentials, and the tool secret of the agent it answers with.
    expect(report.columns).toMatchObject({
      "messaging_channels.credentials": { resealed: 1, sealed: 0 },
      "agents.tool_secret": { resealed: 1, sealed: 0 },
    });
    const [resealed] = await testDb().select().from(messagingChannels).where(eq(messagingChannels.id, channel.id));
    expect(resealed?.credentials).toMatch(SEALED("next"));
    const opened = JSON.parse(
      await openSecret(new Keyring(newKey), resealed?.credentials as string, `messaging_channels.credentials:${channel.id}`),
    );
    expect(opened).toEqual(
      JSON.parse(await openSecret(new Keyring(stackKek()), row?.credentials as string, `messaging_channels.credentials:${channel.id}`)),
    );
  });

  it("a wrong key stops the run before it writes anything: a plaintext secret is not sealed with it", async () => {
    const first = await setup();
    // The first agent's secret in plain text, then a second agent's sealed one: reseal reaches the plaintext row first.
    await testDb().update(agents).set({ toolSecret: first.agent.toolSecret }).where(eq(agents.id, first.agent.id));
    const res = await first.ws.api("/v1/agents", { method: "POST", json: agentWithTools(first.server.url) });
    const second = await json<{ id: string; toolSecret: string }>(res);
    const wrong = `${stackKid()}:${randomBytes(32).toString("base64")}`;
    const run = await runAdmin(["secrets", "reseal", "--org", first.ws.organizationId, "--json"], cliEnv(wrong));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`A stored secret (agents.tool_secret) does not open with the key "${stackKid()}"`);
    expect(run.stderr + run.stdout).not.toContain(second.toolSecret);
    expect(run.stderr + run.stdout).not.toContain(first.agent.toolSecret);
    expect(await storedToolSecret(first.agent.id)).toBe(first.agent.toolSecret);
    expect(await storedToolSecret(second.id)).toMatch(SEALED(stackKid()));
  });
});
