// Request and response shapes of an agent's versions (docs/agents.md, "Versions").
import { z } from "@hono/zod-openapi";
import { AGENT_CONFIG_KEYS } from "../db/schema";
import { pageQuerySchema, pageSchema } from "../lib/pagination";
import { agentConfigSchema } from "./schema";

const EXAMPLE_ID = "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77";
/** Postgres integer's ceiling: a larger number names no version (and is a 400, not a database error). */
const MAX_VERSION = 2_147_483_647;

const versionNumber = (description: string) => z.coerce.number().int().min(1).max(MAX_VERSION).openapi({ description, example: 2 });

const pathVersion = (name: string, description: string) =>
  z.coerce
    .number({ message: `${name} must be a version number` })
    .int()
    .min(1)
    .max(MAX_VERSION)
    .openapi({ param: { name, in: "path" }, description, example: 2 });

/**
 * The agent's version a call, a widget, a channel or a campaign names in its body (docs/agents.md,
 * "Versions"): a draft too; left out, the live version.
 */
export const agentVersionField = (description: string) =>
  z
    .number({ message: "agentVersion must be a version number" })
    .int({ message: "agentVersion must be a whole number" })
    .min(1, { message: "agentVersion must be 1 or more" })
    .max(MAX_VERSION, { message: "agentVersion names no version" })
    .openapi({ description, example: 3 });

const agentIdParam = z.uuid({ message: "Agent id must be a UUID" }).openapi({ param: { name: "id", in: "path" }, example: EXAMPLE_ID });

export const versionParams = z.object({ id: agentIdParam, version: pathVersion("version", "The version's number.") });

export const diffParams = z.object({
  id: agentIdParam,
  from: pathVersion("from", "The version compared from (before)."),
  to: pathVersion("to", "The version compared to (after)."),
});

export const updateAgentQuerySchema = z.strictObject({
  draft: z
    .enum(["true", "false"])
    .transform((v) => v === "true")
    .optional()
    .openapi({
      description:
        "`true`: save the change as a new version that is not live (a draft, built on the newest version); calls keep the live one until it is published.",
      example: "true",
    }),
});

export const publishAgentSchema = z
  .strictObject({ version: versionNumber("The version to make live; the newest when left out.").optional() })
  .openapi("PublishAgentVersion");

export const rollbackAgentSchema = z
  .strictObject({ version: versionNumber("The earlier version whose configuration becomes a new, live version.") })
  .openapi("RollbackAgent");

export const listVersionsQuerySchema = pageQuerySchema;

const configField = z.enum(AGENT_CONFIG_KEYS as [string, ...string[]]);

const versionFields = {
  agentId: z.uuid().openapi({ example: EXAMPLE_ID }),
  version: z.number().int().openapi({ example: 2 }),
  live: z.boolean().openapi({ description: "Whether this is the version calls and chats run with now." }),
  changes: z.array(configField).openapi({
    description: "The top-level fields that differ from the previous version (none for version 1).",
    example: ["systemPrompt", "temperature"],
  }),
  createdBy: z
    .object({
      type: z.enum(["api_key", "user", "system"]),
      id: z
        .uuid()
        .nullable()
        .openapi({ description: "The API key's or the user's id; null for the platform (versions made by a migration)." }),
    })
    .openapi({ example: { type: "api_key", id: EXAMPLE_ID } }),
  createdAt: z.iso.datetime().openapi({ example: "2025-01-15T09:30:00.000Z" }),
};

/** A version in a list: who made it, when and what it changed, without its configuration. */
export const agentVersionSummarySchema = z.object(versionFields).openapi("AgentVersionSummary");

/** One version, with its whole configuration. */
export const agentVersionSchema = z.object({ ...versionFields, config: agentConfigSchema }).openapi("AgentVersion");

export const agentVersionPageSchema = pageSchema(agentVersionSummarySchema, "AgentVersionPage");

export const agentVersionDiffSchema = z
  .object({
    agentId: z.uuid(),
    from: z.number().int(),
    to: z.number().int(),
    changes: z
      .array(z.object({ field: configField, before: z.unknown(), after: z.unknown() }))
      .openapi({ description: "Each top-level field that differs: its value in `from` and in `to` (objects and arrays whole)." }),
  })
  .openapi("AgentVersionDiff", {
    example: { agentId: EXAMPLE_ID, from: 1, to: 2, changes: [{ field: "temperature", before: 0.7, after: 0.3 }] },
  });

export type AgentVersionSummaryView = z.infer<typeof agentVersionSummarySchema>;
export type AgentVersionView = z.infer<typeof agentVersionSchema>;
