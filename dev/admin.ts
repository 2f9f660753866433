// The operator CLI: `npm run admin -- <command> [--json]`. It reaches the database the way
// every Node tool does (dev/connect.ts): through the running `npm run dev` (its stack.json),
// else DATABASE_URL; it never opens the embedded data folder itself. It goes through the same
// services as the dashboard and the API, over the same Neon driver.
import { parseArgs } from "node:util";
import { and, desc, eq, sql } from "drizzle-orm";
import { z } from "zod";
import { type ApiKeyView, createApiKey, listApiKeys, revokeApiKey } from "../src/api-keys/service";
import { createDb, type Db } from "../src/db/client";
import { pageQuery } from "../src/db/pagination";
import { apiKeys, memberships, organizations, users } from "../src/db/schema";
import { randomBase62 } from "../src/lib/crypto";
import { ApiError } from "../src/lib/errors";
import { Keyring } from "../src/lib/secrets";
import { channelCredentialsColumn } from "../src/messaging/channels";
import { adjustCredits, reconcileCredits } from "../src/metering/meter";
import { addMember, createOrganizationWithAdmin } from "../src/organizations/service";
import { toolSecretColumn } from "../src/tools/secret";
import { endpointSecretColumn, type ResealReport, resealSecrets, secretKeyUsage } from "../src/webhooks/secret-store";
import { connectNode, connectRedis, dataDir, readStackInfo, type StackInfo, stackFile } from "./connect";
import { readLocalSecretsKek } from "./secrets-key";

/** A failure the operator can act on: the message says what to do next. */
class CliError extends Error {
  constructor(
    message: string,
    readonly code = "invalid_input",
  ) {
    super(message);
  }
}

const ADMIN = "npm run admin --";

// ---------------------------------------------------------------------------------------------
// Input validation

const uuid = (what: string, listHint: string) =>
  z
    .string({ error: "is required" })
    .trim()
    .pipe(z.uuid({ error: `must be ${what} id (a UUID such as 01a20111-3e63-71b4-a628-bd5338cdd04e); ${listHint}` }));
const orgId = uuid("an organization", `see \`${ADMIN} orgs list\``);
/** HTML5's email shape (what a browser's <input type=email> accepts): `admin@localhost` is valid. */
const email = z
  .string({ error: "is required" })
  .trim()
  .toLowerCase()
  .pipe(z.email({ pattern: z.regexes.html5Email, error: "must be an email address, such as ops@example.com" }).max(320));
const password = z.string().min(8, { error: "must be at least 8 characters" }).max(1024, { error: "must be at most 1024 characters" });
const name = z
  .string({ error: "is required" })
  .trim()
  .min(1, { error: "must not be empty" })
  .max(200, { error: "must be at most 200 characters" });
const role = z.enum(["admin", "member"], { error: "must be admin or member" });

// ---------------------------------------------------------------------------------------------
// Output

interface Result {
  /** The one JSON object printed with --json. */
  json: Record<string, unknown>;
  /** What a person reads. */
  human: string[];
  /** Non-zero when the command found a problem (e.g. books that do not balance). */
  exitCode?: number;
}

function table(headers: string[], rows: string[][]): string[] {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  return [line(headers), line(widths.map((w) => "─".repeat(w))), ...rows.map(line)];
}

const when = (iso: string | null) => (iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)}` : "never");

// ---------------------------------------------------------------------------------------------
// Database access

async function organizationExists(db: Db, id: string): Promise<{ id: string; name: string }> {
  const [org] = await db.select({ id: organizations.id, name: organizations.name }).from(organizations).where(eq(organizations.id, id));
  if (!org) throw new CliError(`No organization with id ${id}. See \`${ADMIN} orgs list\`.`, "not_found");
  return org;
}

async function userByEmail(db: Db, address: string): Promise<{ id: string } | undefined> {
  const [user] = await db.select({ id: users.id }).from(users).where(eq(users.email, address)).limit(1);
  return user;
}

/** The user a key made by the CLI acts for: the organization's first admin. */
async function firstAdmin(db: Db, organizationId: string): Promise<string | null> {
  const [row] = await db
    .select({ userId: memberships.userId })
    .from(memberships)
    .where(and(eq(memberships.organizationId, organizationId), eq(memberships.role, "admin")))
    .orderBy(memberships.createdAt)
    .limit(1);
  return row?.userId ?? null;
}

const generatedPassword = () => randomBase62(20);

/**
 * The deployment's key-encryption keys: SECRETS_KEK from the environment, else the running
 * `npm run dev`'s local key (<DATA_DIR>/secrets-kek.txt). Never printed.
 */
/** Every column of sealed secrets (docs/secrets.md): what `secrets status` counts and `secrets reseal` re-seals. */
const SEALED_COLUMNS = [endpointSecretColumn, toolSecretColumn, channelCredentialsColumn];

function secretsKeyring(): Keyring {
  const spec = process.env.SECRETS_KEK?.trim() || readLocalSecretsKek(dataDir());
  if (!spec) {
    throw new CliError(
      "SECRETS_KEK is not set: set it to the worker's value (docs/secrets.md), or run this while `npm run dev` runs.",
      "misconfigured",
    );
  }
  try {
    return new Keyring(spec);
  } catch (err) {
    throw new CliError((err as Error).message, "misconfigured");
  }
}

// ---------------------------------------------------------------------------------------------
// Commands

interface Command {
  usage: string;
  summary: string;
  flags: z.ZodObject;
  run(db: Db, flags: Record<string, unknown>): Promise<Result>;
}

const credits = (min: number) =>
  z.coerce
    .number({ message: "--credits must be a number of credits, e.g. 25 or 0.5" })
    .min(min, `--credits must be at least ${min}`)
    .max(1_000_000, "--credits must be at most 1,000,000");

/** `credits add` / `credits set`: the Models API's usage credits of an organization. */
const creditsCommand = (mode: "add" | "set"): Command => ({
  usage: `credits ${mode} --org <orgId> --credits <n>`,
  summary: mode === "add" ? "Add usage credits to an organization (the Models API spends them)." : "Set an organization's usage credits.",
  flags: z.strictObject({ org: orgId, credits: credits(mode === "add" ? 0.000001 : 0) }),
  async run(db, f) {
    const input = f as { org: string; credits: number };
    await organizationExists(db, input.org);
    const micro = Math.round(input.credits * 1_000_000);
    const balance = await adjustCredits(db, input.org, mode === "add" ? { addMicro: micro } : { setMicro: micro });
    const remaining = (balance ?? 0) / 1_000_000;
    return {
      json: { organizationId: input.org, credits: remaining, creditsMicro: balance },
      human: [`Organization ${input.org} now has ${remaining} credits.`],
    };
  },
});

const COMMANDS: Record<string, Command> = {
  "credits add": creditsCommand("add"),
  "credits set": creditsCommand("set"),
  "credits reconcile": {
    usage: "credits reconcile [--org <orgId>]",
    summary: "Check the books: credits + open holds + charged usage = credits granted, for every organization (or one).",
    flags: z.strictObject({ org: orgId.optional() }),
    async run(db, f) {
      const input = f as { org?: string };
      if (input.org) await organizationExists(db, input.org);
      const books = await reconcileCredits(db, input.org);
      const off = books.filter((b) => b.differenceMicro !== 0);
      const c = (micro: number) => `${micro / 1_000_000}`;
      return {
        json: { organizations: books.length, unbalanced: off },
        human: [
          off.length === 0
            ? `The books close for ${books.length} organization(s): credits + open holds + charged usage = granted.`
            : `${off.length} of ${books.length} organization(s) do not balance:`,
          ...off.map(
            (b) =>
              `  ${b.organizationId}: credits ${c(b.creditsMicro)} + held ${c(b.heldMicro)} + charged ${c(b.chargedMicro)} ≠ granted ${c(b.grantedMicro)} (difference ${c(b.differenceMicro)})`,
          ),
        ],
        ...(off.length > 0 && { exitCode: 1 }),
      };
    },
  },
  "org create": {
    usage: "org create --name <org> --email <email> [--password <pw>]",
    summary: "Create an organization and its admin user (a password is generated when not given).",
    flags: z.strictObject({ name, email, password: password.optional() }),
    async run(db, f) {
      const input = f as { name: string; email: string; password?: string };
      const existing = await userByEmail(db, input.email);
      const generated = !existing && !input.password ? generatedPassword() : null;
      const { organization, user } = await createOrganizationWithAdmin({
        ctx: { db },
        input: {
          organizationName: input.name,
          email: input.email,
          // An existing user keeps their password; the service ignores this value then.
          password: input.password ?? generated ?? generatedPassword(),
        },
      });
      const human = [
        `Created organization "${organization.name}"`,
        `  Organization  ${organization.id}`,
        `  Admin         ${user.email} (${user.id})${existing ? ", an existing user" : ""}`,
      ];
      if (generated) human.push(`  Password      ${generated}   (generated: shown once)`);
      if (existing && input.password)
        human.push("  Note          the user already existed and keeps their password (--password was not applied)");
      human.push("", `Next: ${ADMIN} keys create --org ${organization.id} --name <name>`);
      return {
        json: {
          organization,
          user: { ...user, existing: Boolean(existing) },
          generatedPassword: generated,
        },
        human,
      };
    },
  },

  "orgs list": {
    usage: "orgs list",
    summary: "List the organizations with their member and active-key counts.",
    flags: z.strictObject({}),
    async run(db) {
      const rows = await db
        .select({
          id: organizations.id,
          name: organizations.name,
          createdAt: organizations.createdAt,
          // Drizzle leaves columns unqualified in a one-table select: qualify by hand in the subqueries.
          members: sql<number>`(select count(*) from ${memberships} m where m.organization_id = ${organizations}.id)`.mapWith(Number),
          activeKeys:
            sql<number>`(select count(*) from ${apiKeys} k where k.organization_id = ${organizations}.id and k.revoked_at is null)`.mapWith(
              Number,
            ),
        })
        .from(organizations)
        .orderBy(desc(organizations.id));
      const list = rows.map((r) => ({ ...r, createdAt: r.createdAt.toISOString() }));
      return {
        json: { organizations: list },
        human: list.length
          ? table(
              ["ID", "NAME", "MEMBERS", "ACTIVE KEYS", "CREATED"],
              list.map((o) => [o.id, o.name, String(o.members), String(o.activeKeys), when(o.createdAt)]),
            )
          : [`No organizations yet. Create one: ${ADMIN} org create --name <org> --email <email>`],
      };
    },
  },

  "keys create": {
    usage: "keys create --org <orgId> --name <name>",
    summary: "Create an API key; its secret is printed once, here, and stored nowhere.",
    flags: z.strictObject({ org: orgId, name }),
    async run(db, f) {
      const input = f as { org: string; name: string };
      await organizationExists(db, input.org);
      const { key, secret } = await createApiKey({
        ctx: { db, organizationId: input.org },
        input: { name: input.name, createdByUserId: await firstAdmin(db, input.org) },
      });
      return {
        json: { organizationId: input.org, key, secret },
        human: [
          `Created API key "${key.name}" (${key.id})`,
          `  Secret  ${secret}`,
          "          shown once: only its hash is stored, so copy it now",
          "",
          `Try it: curl -H "Authorization: Bearer <the secret above>" ${readStackInfo()?.baseUrl ?? "http://127.0.0.1:8787"}/v1/me`,
        ],
      };
    },
  },

  "keys list": {
    usage: "keys list --org <orgId>",
    summary: "List an organization's API keys (masked prefixes only; secrets are never stored).",
    flags: z.strictObject({ org: orgId }),
    async run(db, f) {
      const input = f as { org: string };
      await organizationExists(db, input.org);
      const keys: ApiKeyView[] = [];
      let cursor: string | undefined;
      do {
        const ctx = { db, organizationId: input.org, redis: connectRedis() ?? undefined };
        const page = await listApiKeys({ ctx, input: pageQuery({ limit: 100, cursor }) });
        keys.push(...page.data);
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      return {
        json: { organizationId: input.org, keys },
        human: keys.length
          ? table(
              ["ID", "NAME", "KEY", "STATUS", "CREATED", "LAST USED"],
              keys.map((k) => [k.id, k.name, k.prefix, k.active ? "active" : "revoked", when(k.createdAt), when(k.lastUsedAt)]),
            )
          : [`No API keys. Create one: ${ADMIN} keys create --org ${input.org} --name <name>`],
      };
    },
  },

  "keys revoke": {
    usage: "keys revoke --org <orgId> --id <keyId>",
    summary: "Revoke an API key; it fails from the very next request. Final.",
    flags: z.strictObject({ org: orgId, id: uuid("an API key", `see \`${ADMIN} keys list --org <orgId>\``) }),
    async run(db, f) {
      const input = f as { org: string; id: string };
      await organizationExists(db, input.org);
      let key: ApiKeyView;
      try {
        key = await revokeApiKey({ ctx: { db, organizationId: input.org, redis: connectRedis() }, input: { id: input.id } });
      } catch (err) {
        if (err instanceof ApiError && err.code === "not_found") {
          throw new CliError(
            `No API key ${input.id} in organization ${input.org}. See \`${ADMIN} keys list --org ${input.org}\`.`,
            "not_found",
          );
        }
        if (err instanceof ApiError && err.code === "conflict") {
          throw new CliError(`API key ${input.id} is already revoked (revoked keys stay revoked). Nothing to do.`, "conflict");
        }
        if (err instanceof ApiError && err.code === "cache_unavailable") {
          throw new CliError(err.message, "cache_unavailable");
        }
        throw err;
      }
      return {
        json: { organizationId: input.org, key },
        human: [`Revoked API key "${key.name}" (${key.id}, ${key.prefix}). It fails from the next request on.`],
      };
    },
  },

  "members add": {
    usage: "members add --org <orgId> --email <email> --role admin|member [--password <pw>]",
    summary: "Add a user to an organization (or change their role); a new user gets a generated password when none is given.",
    flags: z.strictObject({ org: orgId, email, role, password: password.optional() }),
    async run(db, f) {
      const input = f as { org: string; email: string; role: "admin" | "member"; password?: string };
      await organizationExists(db, input.org);
      const existing = await userByEmail(db, input.email);
      const generated = !existing && !input.password ? generatedPassword() : null;
      const member = await addMember({
        ctx: { db, organizationId: input.org },
        input: { email: input.email, role: input.role, password: input.password ?? generated ?? undefined },
      });
      const human = [
        `${input.email} is now ${member.role} of organization ${input.org}`,
        `  User      ${member.userId}${existing ? " (existing user)" : " (new user)"}`,
      ];
      if (generated) human.push(`  Password  ${generated}   (generated: shown once)`);
      if (existing && input.password)
        human.push("  Note      the user already existed and keeps their password (--password was not applied)");
      return {
        json: { organizationId: input.org, member: { ...member, existing: Boolean(existing) }, generatedPassword: generated },
        human,
      };
    },
  },

  "secrets status": {
    usage: "secrets status [--org <orgId>]",
    summary:
      "Which SECRETS_KEK key seals the stored secrets (webhook signing secrets, agents' tool secrets, channel credentials; plaintext: not sealed yet).",
    flags: z.strictObject({ org: orgId.optional() }),
    async run(db, f) {
      const input = f as { org?: string };
      if (input.org) await organizationExists(db, input.org);
      const keyring = secretsKeyring();
      const columns: Record<string, Record<string, number>> = {};
      const usage: Record<string, number> = {};
      for (const column of SEALED_COLUMNS) {
        columns[column.place] = await secretKeyUsage(db, column, input.org);
        for (const [kid, n] of Object.entries(columns[column.place] ?? {})) usage[kid] = (usage[kid] ?? 0) + n;
      }
      const stale = Object.keys(usage).filter((kid) => kid !== keyring.current);
      const rows = Object.entries(columns).flatMap(([place, byKid]) =>
        Object.entries(byKid).map(([kid, n]) => [kid, place, String(n), kid === "plaintext" || keyring.has(kid) ? "yes" : "NO"]),
      );
      return {
        json: { current: keyring.current, configured: keyring.kids, usage, columns },
        human: [
          `SECRETS_KEK seals with "${keyring.current}" and opens ${keyring.kids.map((k) => `"${k}"`).join(", ")}.`,
          ...(rows.length ? table(["KEY", "WHERE", "SECRETS", "OPENS"], rows) : ["No stored secrets."]),
          ...(stale.length ? ["", `Seal them all with "${keyring.current}": ${ADMIN} secrets reseal`] : []),
        ],
      };
    },
  },

  "secrets reseal": {
    usage: "secrets reseal [--org <orgId>]",
    summary:
      "Seal every stored secret (webhook signing secrets, agents' tool secrets, channel credentials) with the first SECRETS_KEK key (plaintext values, values under an older key); fails before writing if one does not open.",
    flags: z.strictObject({ org: orgId.optional() }),
    async run(db, f) {
      const input = f as { org?: string };
      if (input.org) await organizationExists(db, input.org);
      const keyring = secretsKeyring();
      let report: ResealReport;
      try {
        report = await resealSecrets(db, keyring, SEALED_COLUMNS, { organizationId: input.org });
      } catch (err) {
        if (err instanceof ApiError && err.code === "misconfigured") throw new CliError(err.message, "misconfigured");
        throw err;
      }
      return {
        json: { ...report },
        human: [
          `Sealed with "${report.kid}": ${report.sealed} plaintext, ${report.resealed} from older keys; ${report.current} already current` +
            (report.skipped ? `; ${report.skipped} rotated meanwhile (sealed by that rotation).` : "."),
          ...Object.entries(report.columns).map(
            ([place, c]) =>
              `  ${place}: ${c.sealed} plaintext, ${c.resealed} from older keys, ${c.current} current, ${c.skipped} rotated meanwhile`,
          ),
          "An older key can leave SECRETS_KEK once `secrets status` shows no secret under it.",
        ],
      };
    },
  },
};

const GROUPS: Record<string, string> = {
  org: "org",
  orgs: "orgs",
  organization: "org",
  organizations: "orgs",
  key: "keys",
  keys: "keys",
  member: "members",
  members: "members",
  credit: "credits",
  credits: "credits",
  secret: "secrets",
  secrets: "secrets",
};
// `org list` and `orgs create` read naturally too.
const ALIASES: Record<string, string> = { "org list": "orgs list", "orgs create": "org create" };

function helpText(): string[] {
  return [
    `Usage: ${ADMIN} <command> [--json]`,
    "",
    "Works while `npm run dev` runs (through its .data/stack.json), or against DATABASE_URL.",
    "--json prints one JSON object; use `npm run -s admin -- …` to keep npm's banner out of it.",
    "",
    "Commands:",
    ...Object.values(COMMANDS).flatMap((c) => [`  ${c.usage}`, `      ${c.summary}`]),
    "  help",
    "      This text. `<command> --help` shows one command.",
  ];
}

// ---------------------------------------------------------------------------------------------
// Main

const OPTIONS = {
  name: { type: "string" },
  email: { type: "string" },
  password: { type: "string" },
  org: { type: "string" },
  id: { type: "string" },
  role: { type: "string" },
  credits: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

function parse(argv: string[]) {
  try {
    return parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const option = /'(-{1,2}[^']+)'/.exec(e.message)?.[1];
    if (e.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION")
      throw new CliError(`Unknown option ${option ?? ""}. Run \`${ADMIN} help\` for the options.`);
    if (e.code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") throw new CliError(`Option ${option?.split(" ")[0] ?? ""} needs a value.`);
    throw new CliError(`${e.message} Run \`${ADMIN} help\`.`);
  }
}

function resolveCommand(positionals: string[]): { key: string; command: Command } | "help" {
  const [group, verb, ...rest] = positionals;
  if (!group || group === "help") return "help";
  const key = ALIASES[`${GROUPS[group] ?? group} ${verb ?? ""}`] ?? `${GROUPS[group] ?? group} ${verb ?? ""}`;
  const command = COMMANDS[key];
  if (!command) {
    const known = GROUPS[group];
    const verbs = Object.keys(COMMANDS)
      .filter((k) => k.startsWith(`${known} `))
      .map((k) => k.split(" ")[1]);
    if (known && !verb) throw new CliError(`\`${group}\` needs a subcommand: ${verbs.join(", ")}. Run \`${ADMIN} help\`.`);
    if (known)
      throw new CliError(`Unknown command "${positionals.join(" ")}": \`${group}\` has ${verbs.join(", ")}. Run \`${ADMIN} help\`.`);
    throw new CliError(`Unknown command "${positionals.join(" ")}". Run \`${ADMIN} help\` for the list.`);
  }
  if (rest.length) throw new CliError(`Unexpected argument "${rest[0]}". Flags take the form --name <value>; run \`${ADMIN} help\`.`);
  return { key, command };
}

function validate(key: string, command: Command, values: Record<string, unknown>): Record<string, unknown> {
  const { json: _json, help: _help, ...flags } = values;
  const parsed = command.flags.safeParse(flags);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    if (issue.code === "unrecognized_keys") return `\`${key}\` does not take ${issue.keys.map((k) => `--${k}`).join(", ")}`;
    const flag = `--${String(issue.path[0])}`;
    return flags[String(issue.path[0])] === undefined ? `Missing ${flag}` : `${flag} ${issue.message}`;
  });
  throw new CliError(`${[...new Set(problems)].join("; ")}.\nUsage: ${ADMIN} ${command.usage}`);
}

async function withDatabase<T>(fn: (db: Db) => Promise<T>): Promise<T> {
  let running: StackInfo | null;
  try {
    running = readStackInfo();
  } catch {
    throw new CliError(`${stackFile()} is unreadable. If \`npm run dev\` is not running, delete that file and retry.`, "no_database");
  }
  let conn: Awaited<ReturnType<typeof connectNode>>;
  try {
    conn = await connectNode();
  } catch (err) {
    throw new CliError(
      /No database/.test((err as Error).message)
        ? "No database: start `npm run dev` (then run this again while it runs), or set DATABASE_URL to a PostgreSQL."
        : `Cannot reach the database: ${(err as Error).message}`,
      "no_database",
    );
  }
  const via = running
    ? `the running \`npm run dev\` (pid ${running.pid})`
    : `DATABASE_URL (${(() => {
        try {
          return new URL(conn.databaseUrl).host;
        } catch {
          return "unparsable";
        }
      })()})`;
  const { db, pool } = createDb(conn.databaseUrl, conn.wsProxy, 1);
  try {
    try {
      await Promise.race([
        db.execute(sql`select 1 from ${organizations} limit 1`),
        new Promise((_, reject) => setTimeout(() => reject(new Error("no answer within 15 s")), 15_000).unref()),
      ]);
    } catch (err) {
      // Drizzle wraps the driver's error ("Failed query: …"); the cause says what went wrong.
      const e = ((err as Error).cause ?? err) as Error & { code?: string };
      const pgCode = e.code;
      if (pgCode === "42P01") {
        throw new CliError(
          `The database behind ${via} has no tables yet: run \`npm run db:migrate\` (or start \`npm run dev\`, which migrates).`,
          "no_database",
        );
      }
      throw new CliError(
        `Cannot reach the database through ${via}: ${e.message || e.name}.\n` +
          (running
            ? "Is `npm run dev` still healthy? Restart it and retry."
            : "Check that PostgreSQL runs and DATABASE_URL is right, or start `npm run dev` and run this while it runs."),
        "no_database",
      );
    }
    return await fn(db);
  } finally {
    await pool.end().catch(() => undefined);
    await conn.close().catch(() => undefined);
  }
}

async function main(argv: string[]): Promise<number> {
  let asJson = argv.includes("--json");
  const print = (result: Result) =>
    process.stdout.write(asJson ? `${JSON.stringify(result.json, null, 2)}\n` : `${result.human.join("\n")}\n`);
  try {
    const { values, positionals } = parse(argv);
    asJson = Boolean(values.json);
    const resolved = resolveCommand(positionals);
    if (resolved === "help") {
      print({
        json: { usage: `${ADMIN} <command> [--json]`, commands: Object.values(COMMANDS).map(({ usage, summary }) => ({ usage, summary })) },
        human: helpText(),
      });
      return 0;
    }
    const { key, command } = resolved;
    if (values.help) {
      print({
        json: { usage: `${ADMIN} ${command.usage}`, summary: command.summary },
        human: [`Usage: ${ADMIN} ${command.usage}`, "", command.summary],
      });
      return 0;
    }
    const flags = validate(key, command, values);
    const result = await withDatabase((db) => command.run(db, flags));
    print(result);
    return result.exitCode ?? 0;
  } catch (err) {
    const known = err instanceof CliError;
    // Not drizzle's "Failed query: …" text: its params could hold a password or key hash.
    const root = (err as Error)?.cause instanceof Error ? ((err as Error).cause as Error) : (err as Error);
    const message = known ? err.message : `Unexpected error: ${root?.message ?? String(err)}`;
    const code = known ? err.code : "internal_error";
    process.stderr.write(`error: ${message}\n`);
    if (asJson) process.stdout.write(`${JSON.stringify({ error: { code, message } }, null, 2)}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
// Sockets of the Neon driver can linger a moment after pool.end(); do not wait on them.
setTimeout(() => process.exit(), 2000).unref();
