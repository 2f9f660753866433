import { pgTable, text } from "drizzle-orm/pg-core";
import { id, timestamps } from "./util";

export const organizations = pgTable("organizations", {
  id: id(),
  name: text("name").notNull(),
  ...timestamps,
});

export type Organization = typeof organizations.$inferSelect;
