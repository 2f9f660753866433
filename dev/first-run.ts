// First start of `npm run dev`: when the database holds no organization yet, create a local
// workspace with an admin user and one API key, through the same services the admin CLI and the
// dashboard use, over the Neon driver. The sign-in details (never the API key) are also written
// to <DATA_DIR>/first-run.txt, so a user who missed the banner can find them again.
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { count } from "drizzle-orm";
import { createApiKey } from "../src/api-keys/service";
import { createDb } from "../src/db/client";
import { organizations } from "../src/db/schema";
import { randomBase62 } from "../src/lib/crypto";
import { createOrganizationWithAdmin } from "../src/organizations/service";

export const FIRST_RUN_EMAIL = "admin@localhost";
export const FIRST_RUN_WORKSPACE = "Local workspace";

export const firstRunFile = (dataDir: string) => join(dataDir, "first-run.txt");

export type FirstRun =
  | {
      created: true;
      organizationId: string;
      email: string;
      password: string;
      /** The API key's full secret: printed once by the caller, stored nowhere. */
      apiKey: string;
      file: string;
    }
  | { created: false; organizations: number; file: string | null };

export async function ensureFirstRun(opts: { databaseUrl: string; wsProxy: string; dataDir: string; baseUrl: string }): Promise<FirstRun> {
  const { db, pool } = createDb(opts.databaseUrl, opts.wsProxy, 1);
  try {
    const [row] = await db.select({ n: count() }).from(organizations);
    const existing = Number(row?.n ?? 0);
    const file = firstRunFile(opts.dataDir);
    if (existing > 0) return { created: false, organizations: existing, file: existsSync(file) ? file : null };

    const password = randomBase62(20);
    const { organization, user } = await createOrganizationWithAdmin({
      ctx: { db },
      input: { organizationName: FIRST_RUN_WORKSPACE, email: FIRST_RUN_EMAIL, password, userName: "Local admin" },
    });
    // Written before the key exists, so the sign-in is never lost even if the key step fails.
    writePrivate(
      file,
      [
        "# Sign-in for the local workspace created by the first `npm run dev`.",
        "# The API key printed on that run is not stored anywhere; make another with:",
        `#   npm run admin -- keys create --org ${organization.id} --name <name>`,
        "",
        `dashboard: ${opts.baseUrl}/dashboard`,
        `email:     ${user.email}`,
        `password:  ${password}`,
        `workspace: ${organization.name} (${organization.id})`,
        "",
      ].join("\n"),
    );
    const { secret } = await createApiKey({
      ctx: { db, organizationId: organization.id },
      input: { name: "first-run", createdByUserId: user.id },
    });
    return { created: true, organizationId: organization.id, email: user.email, password, apiKey: secret, file };
  } finally {
    await pool.end();
  }
}

/** Owner-only file (it holds a password or connection details). */
export function writePrivate(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text, { mode: 0o600 });
  chmodSync(file, 0o600);
}
