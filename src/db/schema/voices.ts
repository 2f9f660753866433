import { index, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { organizations } from "./organizations";
import { id, timestamps } from "./util";

/**
 * Voices. `organizationId` null marks a system voice (seeded by a migration, visible to
 * every workspace, read-only); otherwise the voice is owned by that workspace.
 */
export const voices = pgTable(
  "voices",
  {
    id: id(),
    organizationId: uuid("organization_id").references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    provider: text("provider").notNull(),
    providerVoiceId: text("provider_voice_id").notNull(),
    language: text("language").notNull(),
    gender: text("gender"),
    previewUrl: text("preview_url"),
    description: text("description"),
    ...timestamps,
  },
  (t) => [index("voices_org_idx").on(t.organizationId, t.id)],
);

export type Voice = typeof voices.$inferSelect;
