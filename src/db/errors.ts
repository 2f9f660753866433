// What a database error says, through the wrappers around it (Drizzle's query error, the Neon
// driver's NeonDbError, PGlite's error): the SQLSTATE and the detail of the first error that has one.

interface PgFields {
  code?: unknown;
  detail?: unknown;
  cause?: unknown;
}

/** The Postgres error in `err`'s chain of causes (a few deep), or null. */
export function postgresError(err: unknown): { code: string; detail: string | null } | null {
  let e: unknown = err;
  for (let i = 0; i < 5 && typeof e === "object" && e !== null; i++) {
    const { code, detail, cause } = e as PgFields;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return { code, detail: typeof detail === "string" ? detail : null };
    e = cause;
  }
  return null;
}

/** SQLSTATE 23503: a foreign key names a row that is not there (deleted meanwhile). */
export const isForeignKeyViolation = (err: unknown) => postgresError(err)?.code === "23503";

/** SQLSTATE 23505: a unique index refused the row. */
export const isUniqueViolation = (err: unknown) => postgresError(err)?.code === "23505";

/**
 * SQLSTATE VA429, raised by the calls table's trigger (migration 0024): inserting the call would
 * pass the workspace's or the campaign's limit on calls in flight. Which one, or null.
 */
export function inFlightLimitOf(err: unknown): "workspace" | "campaign" | null {
  const pg = postgresError(err);
  if (pg?.code !== "VA429") return null;
  return pg.detail === "campaign" ? "campaign" : "workspace";
}
