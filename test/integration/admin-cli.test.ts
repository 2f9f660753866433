// The operator CLI (dev/admin.ts) as an operator runs it: a child process, against the test
// stack's database through DATABASE_URL (its own in-process WebSocket proxy), with an empty
// DATA_DIR so no running `npm run dev` is found. Its results are checked on the real worker.
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { baseUrl, request, signIn, stack, testDb } from "../support/harness";
import { runAdmin, runAdminJson } from "../support/process";

const emptyDataDir = mkdtempSync(join(tmpdir(), "admin-cli-"));
afterAll(() => rmSync(emptyDataDir, { recursive: true, force: true }));

/** The environment of an operator running it against a deployment: the database and the key cache (Upstash Redis). */
function operatorEnv(env: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: stack().databaseUrl,
    UPSTASH_REDIS_REST_URL: stack().redisUrl,
    UPSTASH_REDIS_REST_TOKEN: stack().redisToken,
    DATA_DIR: emptyDataDir,
    ...env,
  };
  for (const [k, v] of Object.entries(childEnv)) if (v === undefined) delete childEnv[k];
  return childEnv;
}

const admin = (args: string[], env: Record<string, string | undefined> = {}) => runAdmin(args, operatorEnv(env));
/** Runs a command with --json; it must succeed and print exactly one JSON object. */
const adminJson = <T = Record<string, unknown>>(args: string[]) => runAdminJson<T>(args, operatorEnv());

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const email = (tag: string) => `${tag}-${randomUUID()}@example.test`;
const me = (secret: string) => fetch(`${baseUrl()}/v1/me`, { headers: { authorization: `Bearer ${secret}` } });

interface OrgCreated {
  organization: { id: string; name: string };
  user: { id: string; email: string; existing: boolean };
  generatedPassword: string | null;
}
interface KeyCreated {
  organizationId: string;
  key: { id: string; name: string; prefix: string; active: boolean };
  secret: string;
}

describe("admin CLI", () => {
  it("org create returns the ids; the admin signs in with the given or the generated password", async () => {
    const given = email("given");
    const [withPw, generated] = await Promise.all([
      adminJson<OrgCreated>(["org", "create", "--name", "Given pw", "--email", given.toUpperCase(), "--password", "correct horse battery"]),
      adminJson<OrgCreated>(["org", "create", "--name", "Generated pw", "--email", email("gen")]),
    ]);
    expect(withPw.organization).toEqual({ id: expect.stringMatching(UUID), name: "Given pw" });
    expect(withPw.user).toEqual({ id: expect.stringMatching(UUID), email: given, existing: false });
    expect(withPw.generatedPassword).toBeNull();
    expect(generated.generatedPassword).toMatch(/^[0-9A-Za-z]{20}$/);

    await signIn(given, "correct horse battery");
    const { cookie } = await signIn(generated.user.email, generated.generatedPassword as string);
    const session = await request("/dashboard/api/session", { headers: { cookie } });
    expect(await session.json()).toMatchObject({ organizations: [{ id: generated.organization.id, role: "admin" }] });
  }, 90_000);

  it("keys create prints a secret that authenticates; keys list never shows it; keys revoke stops it at once", async () => {
    const { organization } = await adminJson<OrgCreated>(["org", "create", "--name", "Keys", "--email", email("keys")]);
    const created = await adminJson<KeyCreated>(["keys", "create", "--org", organization.id, "--name", "ci"]);
    expect(created.secret).toMatch(/^sk-live-[0-9A-Za-z]{40}$/);
    expect(created.key).toMatchObject({
      id: expect.stringMatching(UUID),
      name: "ci",
      active: true,
      prefix: `${created.secret.slice(0, 16)}…`,
    });

    const ok = await me(created.secret);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ authType: "api_key", organizationId: organization.id });

    const [listed, table] = await Promise.all([
      adminJson<{ keys: Array<{ id: string; prefix: string; active: boolean }> }>(["keys", "list", "--org", organization.id]),
      admin(["keys", "list", "--org", organization.id]),
    ]);
    expect(listed.keys).toEqual([expect.objectContaining({ id: created.key.id, prefix: created.key.prefix, active: true })]);
    expect(table.code).toBe(0);
    expect(table.stdout).toContain(created.key.prefix);
    expect(table.stdout).toContain("active");
    for (const out of [JSON.stringify(listed), table.stdout, table.stderr]) {
      expect(out).not.toContain(created.secret);
      expect(out).not.toContain(created.secret.slice(16)); // not even the hidden part
    }

    const revoked = await adminJson<{ key: { id: string; active: boolean } }>([
      "keys",
      "revoke",
      "--org",
      organization.id,
      "--id",
      created.key.id,
    ]);
    expect(revoked.key).toMatchObject({ id: created.key.id, active: false });
    expect((await me(created.secret)).status).toBe(401);

    const again = await admin(["keys", "revoke", "--org", organization.id, "--id", created.key.id]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already revoked/);
  }, 120_000);

  it("keys revoke without the key cache configured refuses, saying which variables to set", async () => {
    const { organization } = await adminJson<OrgCreated>(["org", "create", "--name", "No cache", "--email", email("nocache")]);
    const created = await adminJson<KeyCreated>(["keys", "create", "--org", organization.id, "--name", "ci"]);
    expect((await me(created.secret)).status).toBe(200);
    const run = await admin(["keys", "revoke", "--org", organization.id, "--id", created.key.id], {
      UPSTASH_REDIS_REST_URL: undefined,
      UPSTASH_REDIS_REST_TOKEN: undefined,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN.*Nothing was changed/);
    expect((await me(created.secret)).status).toBe(200);
  }, 120_000);

  it("human output of keys create shows the secret once, marked as such", async () => {
    const { organization } = await adminJson<OrgCreated>(["org", "create", "--name", "Human", "--email", email("human")]);
    const run = await admin(["keys", "create", "--org", organization.id, "--name", "laptop"]);
    expect(run.code).toBe(0);
    const secret = /sk-live-[0-9A-Za-z]{40}/.exec(run.stdout)?.[0];
    expect(secret).toBeDefined();
    expect(run.stdout).toMatch(/shown once/);
    expect(run.stdout.split(secret as string)).toHaveLength(2); // printed exactly once
    expect((await me(secret as string)).status).toBe(200);
  }, 90_000);

  it("credits set and add change what the Models API may spend, as /v1/usage reports", async () => {
    const { organization } = await adminJson<OrgCreated>(["org", "create", "--name", "Credits", "--email", email("credits")]);
    const { secret } = await adminJson<KeyCreated>(["keys", "create", "--org", organization.id, "--name", "k"]);
    const remaining = async () => {
      const res = await fetch(`${baseUrl()}/v1/usage`, { headers: { authorization: `Bearer ${secret}` } });
      return ((await res.json()) as { credits: { remaining: number } }).credits.remaining;
    };
    expect(await remaining()).toBe(10);
    expect(await adminJson(["credits", "set", "--org", organization.id, "--credits", "0"])).toMatchObject({ credits: 0, creditsMicro: 0 });
    const chat = () =>
      fetch(`${baseUrl()}/v1/llm/chat`, {
        method: "POST",
        headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
        body: JSON.stringify({ messages: [{ role: "user", content: "hi" }] }),
      });
    expect((await chat()).status).toBe(402);
    expect(await adminJson(["credits", "add", "--org", organization.id, "--credits", "2.5"])).toMatchObject({ credits: 2.5 });
    expect(await remaining()).toBe(2.5);
    expect((await chat()).status).toBe(200);
    const bad = await admin(["credits", "add", "--org", organization.id, "--credits", "lots"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--credits must be a number/);

    // The books close: the set (a difference of -10) and the add are grants, the chat is charged usage.
    expect(await adminJson(["credits", "reconcile", "--org", organization.id])).toEqual({ organizations: 1, unbalanced: [] });
    // Money that appears from nowhere is reported, with exit code 1.
    await testDb().execute(sql`update organizations set credits_micro = credits_micro + 7 where id = ${organization.id}::uuid`);
    const off = await admin(["credits", "reconcile", "--org", organization.id]);
    expect(off.code).toBe(1);
    expect(off.stdout).toContain(`1 of 1 organization(s) do not balance`);
    expect(off.stdout).toContain("difference 0.000007");
  }, 90_000);

  it("members add with role member: the user signs in and is a member", async () => {
    const { organization } = await adminJson<OrgCreated>(["org", "create", "--name", "Team", "--email", email("owner")]);
    const address = email("member");
    const added = await adminJson<{ member: { userId: string; email: string; role: string }; generatedPassword: string | null }>([
      "members",
      "add",
      "--org",
      organization.id,
      "--email",
      address,
      "--role",
      "member",
      "--password",
      "member-password-1",
    ]);
    expect(added.member).toMatchObject({ userId: expect.stringMatching(UUID), email: address, role: "member" });
    expect(added.generatedPassword).toBeNull();

    const { cookie } = await signIn(address, "member-password-1");
    const session = await request("/dashboard/api/session", { headers: { cookie } });
    expect(await session.json()).toMatchObject({ organizations: [{ id: organization.id, role: "member" }] });

    const orgs = await adminJson<{ organizations: Array<{ id: string; members: number; activeKeys: number }> }>(["orgs", "list"]);
    expect(orgs.organizations).toContainEqual(expect.objectContaining({ id: organization.id, members: 2, activeKeys: 0 }));
  }, 120_000);

  it("rejects bad input with exit 1 and says what to do", async () => {
    const org = randomUUID();
    const [badUuid, unknown, missing, badRole, badEmail, extraFlag, unknownOrg, jsonError] = await Promise.all([
      admin(["keys", "list", "--org", "not-a-uuid"]),
      admin(["frobnicate"]),
      admin(["keys", "create", "--org", org]),
      admin(["members", "add", "--org", org, "--email", "a@example.test", "--role", "owner"]),
      admin(["org", "create", "--name", "X", "--email", "not-an-email"]),
      admin(["org", "create", "--name", "X", "--email", "a@example.test", "--role", "admin"]),
      admin(["keys", "list", "--org", org]),
      admin(["keys", "revoke", "--org", "nope", "--id", org, "--json"]),
    ]);
    for (const run of [badUuid, unknown, missing, badRole, badEmail, extraFlag, unknownOrg, jsonError]) {
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr).toMatch(/^error: /);
    }
    expect(badUuid.stderr).toMatch(/--org must be an organization id \(a UUID.*orgs list/);
    expect(unknown.stderr).toMatch(/Unknown command "frobnicate".*help/);
    expect(missing.stderr).toMatch(/Missing --name/);
    expect(missing.stderr).toMatch(/Usage: npm run admin -- keys create --org <orgId> --name <name>/);
    expect(badRole.stderr).toMatch(/--role must be admin or member/);
    expect(badEmail.stderr).toMatch(/--email must be an email address/);
    expect(extraFlag.stderr).toMatch(/`org create` does not take --role/);
    expect(unknownOrg.stderr).toMatch(new RegExp(`No organization with id ${org}.*orgs list`));
    expect(JSON.parse(jsonError.stdout)).toEqual({ error: { code: "invalid_input", message: expect.stringMatching(/--org must be/) } });
  }, 90_000);

  it("without a running stack or DATABASE_URL, says how to get a database", async () => {
    const run = await admin(["orgs", "list"], { DATABASE_URL: undefined });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/No database: start `npm run dev`.*or set DATABASE_URL/);
  }, 60_000);

  it("help lists every command", async () => {
    const run = await admin(["help"]);
    expect(run.code).toBe(0);
    for (const cmd of ["org create", "orgs list", "keys create", "keys list", "keys revoke", "members add"])
      expect(run.stdout).toContain(cmd);
  }, 60_000);
});
