// Applies the committed drizzle/ migrations through the Neon driver: the production client,
// whichever server is behind it. `npm run db:migrate` runs this against DATABASE_URL.
import { fileURLToPath } from "node:url";
import { migrate } from "drizzle-orm/neon-serverless/migrator";
import { createDb } from "../src/db/client";
import { connectNode } from "./connect";

export const MIGRATIONS_DIR = fileURLToPath(new URL("../drizzle", import.meta.url));

export async function runMigrations(databaseUrl: string, wsProxy: string | undefined): Promise<void> {
  const { db, pool } = createDb(databaseUrl, wsProxy);
  try {
    await migrate(db, { migrationsFolder: MIGRATIONS_DIR });
  } finally {
    await pool.end();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const conn = await connectNode();
  process.stdout.write("Applying migrations… ");
  await runMigrations(conn.databaseUrl, conn.wsProxy);
  console.log("done.");
  await conn.close();
}
