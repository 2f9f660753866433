// What the bench needs before measuring: a workspace and an API key, created through the
// services with a Node-side database handle (as test/support/harness.ts does), and agents created
// through the public API so GET /v1/agents lists a realistic page.
import { randomUUID } from "node:crypto";
import "../dev/connect"; // the Node WebSocket constructor for the Neon driver
import { eq } from "drizzle-orm";
import { createApiKey } from "../src/api-keys/service";
import { createDb } from "../src/db/client";
import { organizations, users } from "../src/db/schema";
import { createOrganizationWithAdmin } from "../src/organizations/service";

export interface BenchWorkspace {
  organizationId: string;
  userId: string;
  apiKey: string;
  /** The admin's sign-in, for the dashboard's pages. */
  email: string;
  password: string;
}

export async function createBenchWorkspace(databaseUrl: string, wsProxy: string | undefined): Promise<BenchWorkspace> {
  const { db, pool } = createDb(databaseUrl, wsProxy, 2);
  try {
    const email = `bench-${randomUUID()}@example.test`;
    const password = `pw-${randomUUID()}`;
    const { organization, user } = await createOrganizationWithAdmin({
      ctx: { db },
      input: { organizationName: "Benchmark workspace", email, password },
    });
    const { secret } = await createApiKey({
      ctx: { db, organizationId: organization.id },
      input: { name: "bench", createdByUserId: user.id },
    });
    return { organizationId: organization.id, userId: user.id, apiKey: secret, email, password };
  } finally {
    await pool.end();
  }
}

/** Deletes the workspace (its keys, agents… cascade) and its admin: a real database is shared. */
export async function removeBenchWorkspace(databaseUrl: string, wsProxy: string | undefined, ws: BenchWorkspace): Promise<void> {
  const { db, pool } = createDb(databaseUrl, wsProxy, 1);
  try {
    await db.delete(organizations).where(eq(organizations.id, ws.organizationId));
    await db.delete(users).where(eq(users.id, ws.userId));
  } finally {
    await pool.end();
  }
}

const authorized = (apiKey: string, extra: Record<string, string> = {}) => ({ authorization: `Bearer ${apiKey}`, ...extra });

/** Whether the worker serves GET `path` for this key (a 404 means the route is not there yet). */
export async function routeStatus(baseUrl: string, path: string, apiKey: string): Promise<number> {
  const res = await fetch(baseUrl + path, { headers: authorized(apiKey), signal: AbortSignal.timeout(15_000) });
  await res.arrayBuffer();
  return res.status;
}

/** Creates `count` agents with POST /v1/agents, a few at a time; throws on the first failure. */
export async function seedAgents(
  baseUrl: string,
  apiKey: string,
  count: number,
  progress: (done: number) => void,
  headers: Record<string, string> = {},
): Promise<number> {
  let next = 0;
  let done = 0;
  const one = async (i: number) => {
    const res = await fetch(`${baseUrl}/v1/agents`, {
      method: "POST",
      headers: authorized(apiKey, { "content-type": "application/json", ...headers }),
      body: JSON.stringify({ name: `Bench agent ${i + 1}`, personaId: randomUUID() }),
      signal: AbortSignal.timeout(15_000),
    });
    const text = await res.text();
    if (res.status !== 201) throw new Error(`POST /v1/agents answered ${res.status}: ${text.slice(0, 300)}`);
    done += 1;
    if (done % 10 === 0 || done === count) progress(done);
  };
  const lane = async () => {
    while (next < count) await one(next++);
  };
  await Promise.all(Array.from({ length: Math.min(5, count) }, lane));
  return done;
}
