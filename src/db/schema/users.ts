import { pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { id, timestamps } from "./util";

export const users = pgTable(
  "users",
  {
    id: id(),
    /** Stored lower-cased; unique across the service. */
    email: text("email").notNull(),
    name: text("name"),
    /** `pbkdf2-sha256$<iterations>$<salt b64>$<hash b64>` */
    passwordHash: text("password_hash").notNull(),
    ...timestamps,
  },
  (t) => [uniqueIndex("users_email_uq").on(t.email)],
);

export type User = typeof users.$inferSelect;
