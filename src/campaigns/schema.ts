// Request and response shapes of campaigns and their recipients (docs/campaigns.md). The rules a
// zod schema cannot say alone (a time zone Intl knows, start before end, a limit that depends on
// the workspace, each recipient row) are checked by rules.ts and recipients.ts, with every issue
// listed at once.
import { z } from "@hono/zod-openapi";
import { agentVersionField } from "../agents/versions-schema";
import { CAMPAIGN_STATUSES, RECIPIENT_STATES } from "../db/schema/campaigns";
import { metadataSchema, NON_EMPTY_PATCH, nonEmptyPatch, text } from "../lib/fields";
import { pageQuerySchema, pageSchema } from "../lib/pagination";

const EXAMPLE_ID = "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77";

/** The most recipients of one campaign; a larger list is refused whole (docs/campaigns.md, "Limits"). */
export const MAX_RECIPIENTS = 10_000;
/** The most row issues an error body lists (its message says how many there are in all). */
export const MAX_LISTED_ISSUES = 100;
/** The most caller ids of one campaign. */
export const MAX_FROM_NUMBERS = 20;
export const RETRY_OUTCOMES = ["no-answer", "busy", "failed", "voicemail"] as const;
export const RETRY_LIMITS = { maxAttempts: 5, minDelaySeconds: 60, maxDelaySeconds: 7 * 24 * 3600 } as const;
export const DEFAULT_RETRY = { maxAttempts: 1, delaySeconds: 3600, on: ["no-answer", "busy"] as Array<(typeof RETRY_OUTCOMES)[number]> };
/** A campaign's limit on calls in flight when its creator names none (never above the workspace's). */
export const DEFAULT_CAMPAIGN_CALLS_IN_FLIGHT = 10;

const HH_MM = /^([01]\d|2[0-3]):[0-5]\d$/;
const hhmm = (field: string) =>
  z
    .string()
    .regex(HH_MM, `${field} must be a time of day HH:MM (00:00 to 23:59)`)
    .openapi({ example: field === "start" ? "09:00" : "18:00" });

export const scheduleSchema = z
  .strictObject({
    days: z
      .array(
        z
          .number()
          .int()
          .min(1, "days are ISO weekdays, 1 (Monday) to 7 (Sunday)")
          .max(7, "days are ISO weekdays, 1 (Monday) to 7 (Sunday)"),
      )
      .min(1, "name at least one day")
      .max(7)
      .refine((d) => new Set(d).size === d.length, "each day once")
      .openapi({ description: "ISO weekdays on which calls are placed: 1 is Monday, 7 Sunday.", example: [1, 2, 3, 4, 5] }),
    start: hhmm("start").openapi({ description: "The window's start, in the recipient's time zone." }),
    end: hhmm("end").openapi({ description: "The window's end (exclusive), after `start` on the same day." }),
    timezone: z.string().min(1).max(64).openapi({
      description: "IANA time zone for recipients whose row names none.",
      example: "America/New_York",
    }),
  })
  .openapi("CampaignSchedule", {
    description: 'When calls may be placed, in each recipient\'s time zone (docs/campaigns.md, "Schedule"). Null: at any time.',
  });

const retryFields = {
  maxAttempts: z
    .number()
    .int()
    .min(1)
    .max(RETRY_LIMITS.maxAttempts)
    .openapi({ description: `Attempts per recipient in all, 1 to ${RETRY_LIMITS.maxAttempts}.`, example: 3 }),
  delaySeconds: z
    .number()
    .int()
    .min(RETRY_LIMITS.minDelaySeconds, `must be at least ${RETRY_LIMITS.minDelaySeconds} seconds`)
    .max(RETRY_LIMITS.maxDelaySeconds, "must be at most 7 days (604800 seconds)")
    .openapi({ description: "Wait before the next attempt, 60 s to 7 days.", example: 3600 }),
  on: z
    .array(z.enum(RETRY_OUTCOMES))
    .max(RETRY_OUTCOMES.length)
    .refine((o) => new Set(o).size === o.length, "each outcome once")
    .openapi({ description: "Outcomes tried again while attempts remain.", example: ["no-answer", "busy"] }),
};

export const retrySchema = z
  .strictObject({
    maxAttempts: retryFields.maxAttempts.default(DEFAULT_RETRY.maxAttempts),
    delaySeconds: retryFields.delaySeconds.default(DEFAULT_RETRY.delaySeconds),
    on: retryFields.on.default(DEFAULT_RETRY.on),
  })
  .openapi("CampaignRetry", { description: "Retries: defaults 1 attempt (no retry), 3600 s, on no-answer and busy." });

const retryPatchSchema = z
  .strictObject({
    maxAttempts: retryFields.maxAttempts.optional(),
    delaySeconds: retryFields.delaySeconds.optional(),
    on: retryFields.on.optional(),
  })
  .openapi("CampaignRetryPatch", { description: "The fields to change; the others keep their values." });

const name = () => text({ min: 1, max: 200, trim: true, singleLine: true });
const fromNumbers = () =>
  z
    .array(z.string())
    .min(1, "name at least one caller id")
    .max(MAX_FROM_NUMBERS)
    .openapi({
      description: "Caller ids, used in turn: the workspace's phone numbers (GET /v1/phone-numbers) or the platform's shared ones.",
      example: ["+14155550100"],
    });
const maxCallsInFlight = () =>
  z
    .number()
    .int()
    .min(1)
    .openapi({
      description: `The campaign's own limit on calls in flight, 1 to the workspace's (GET /v1/concurrency); default ${DEFAULT_CAMPAIGN_CALLS_IN_FLIGHT} or the workspace's if lower.`,
      example: 5,
    });

/**
 * A recipient as JSON gives it. Only the types are checked here: the number's form, the time zone,
 * duplicates and the variables the agent needs are checked per row by recipients.ts, so every
 * row's problems come back together.
 */
export const recipientInputSchema = z
  .strictObject({
    phoneNumber: z.string().max(64).openapi({
      description:
        'E.164; spaces, dashes, dots and parentheses are dropped ("+1 (415) 555-0100" is +14155550100). The + and country code are required.',
      example: "+14155550100",
    }),
    timezone: z
      .string()
      .max(64)
      .nullable()
      .optional()
      .openapi({ description: "IANA time zone of this recipient (default: the schedule's).", example: "America/Chicago" }),
    variables: z
      .record(z.string(), z.string())
      .optional()
      .openapi({
        description: "Fill `{{name}}` in the agent's prompt and messages; must give every name they use.",
        example: { first_name: "Ada" },
      }),
  })
  .openapi("CampaignRecipientInput");

export type RecipientInput = z.infer<typeof recipientInputSchema>;

const campaignFields = {
  name: name().openapi({ example: "March reminders" }),
  agentId: z
    .uuid({ message: "agentId must be a UUID" })
    .openapi({ description: "The agent that talks on every call.", example: EXAMPLE_ID }),
  agentVersion: agentVersionField(
    'The agent\'s version every call runs, a draft too; null (the default): the live version at each dial. 404 when the agent has no such version (docs/agents.md, "Versions").',
  ).nullable(),
  fromNumbers: fromNumbers(),
  schedule: scheduleSchema.nullable(),
  retry: retrySchema,
  maxCallsInFlight: maxCallsInFlight(),
  metadata: metadataSchema(),
};

/** A campaign to create, without its recipients (the multipart form's `campaign` field). */
export const createCampaignFieldsSchema = z
  .strictObject({
    name: campaignFields.name,
    agentId: campaignFields.agentId,
    agentVersion: campaignFields.agentVersion.default(null),
    fromNumbers: campaignFields.fromNumbers,
    schedule: campaignFields.schedule.default(null),
    retry: campaignFields.retry.default(DEFAULT_RETRY),
    maxCallsInFlight: campaignFields.maxCallsInFlight.optional(),
    metadata: campaignFields.metadata.default({}),
  })
  .openapi("CreateCampaignFields");

// A schema of its own, not an extension of CreateCampaignFields: the document would give it as
// allOf of that strict object and the recipients, which no body satisfies.
export const createCampaignSchema = z
  .strictObject({
    ...createCampaignFieldsSchema.shape,
    recipients: z
      .array(recipientInputSchema)
      .min(1, "name at least one recipient")
      .max(MAX_RECIPIENTS, `at most ${MAX_RECIPIENTS.toLocaleString("en-US")} recipients per campaign`),
  })
  .openapi("CreateCampaign", {
    example: {
      name: "March reminders",
      agentId: EXAMPLE_ID,
      fromNumbers: ["+14155550100"],
      schedule: { days: [1, 2, 3, 4, 5], start: "09:00", end: "18:00", timezone: "America/New_York" },
      retry: { maxAttempts: 3, delaySeconds: 3600, on: ["no-answer", "busy"] },
      maxCallsInFlight: 5,
      metadata: {},
      recipients: [{ phoneNumber: "+14155550123", variables: { first_name: "Ada" } }],
    },
  });

export type CreateCampaignFields = z.infer<typeof createCampaignFieldsSchema>;
export type CreateCampaignJson = z.infer<typeof createCampaignSchema>;

/** The multipart form of a CSV upload: documented here, read and checked by form.ts. */
export const createCampaignFormSchema = z
  .object({
    campaign: z.any().optional().openapi({ type: "string", description: "The campaign as JSON (CreateCampaignFields: no `recipients`)." }),
    csv: z.any().optional().openapi({
      type: "string",
      format: "binary",
      description: "The recipients as UTF-8 CSV: a header row with `phone_number`, optional `timezone`, every other column a variable.",
    }),
  })
  .openapi("CreateCampaignForm");

export const updateCampaignSchema = z
  .strictObject({
    name: campaignFields.name.optional(),
    agentVersion: campaignFields.agentVersion.optional(),
    fromNumbers: campaignFields.fromNumbers.optional(),
    schedule: campaignFields.schedule.optional(),
    retry: retryPatchSchema.optional(),
    maxCallsInFlight: campaignFields.maxCallsInFlight.optional(),
    metadata: campaignFields.metadata.optional(),
  })
  .refine(nonEmptyPatch, NON_EMPTY_PATCH)
  .openapi("UpdateCampaign", { example: { maxCallsInFlight: 3 } });

export type UpdateCampaignInput = z.infer<typeof updateCampaignSchema>;

const countsShape = Object.fromEntries(RECIPIENT_STATES.map((s) => [s, z.number().int()])) as Record<
  (typeof RECIPIENT_STATES)[number],
  z.ZodNumber
>;
export const recipientCountsSchema = z.strictObject(countsShape).openapi("CampaignRecipientCounts", {
  description: "Recipients in each state.",
  example: { pending: 10, calling: 2, completed: 30, voicemail: 4, "no-answer": 3, busy: 1, failed: 0, canceled: 0 },
});

const time = () => z.iso.datetime().openapi({ example: "2025-03-03T14:00:00.000Z" });

export const campaignSchema = z
  .object({
    id: z.uuid().openapi({ example: EXAMPLE_ID }),
    name: z.string(),
    agentId: z.uuid().nullable().openapi({ description: "Null once the agent was deleted (the campaign is paused then)." }),
    agentVersion: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'The agent\'s version its calls run; null: the live version at each dial (docs/agents.md, "Versions").' }),
    fromNumbers: z.array(z.string()),
    status: z.enum(CAMPAIGN_STATUSES).openapi({ description: 'docs/campaigns.md, "States".' }),
    pausedReason: z.string().nullable().openapi({ description: "Why the platform paused it; null when running or paused by a user." }),
    schedule: scheduleSchema.nullable(),
    retry: z.object({ maxAttempts: z.number().int(), delaySeconds: z.number().int(), on: z.array(z.enum(RETRY_OUTCOMES)) }),
    maxCallsInFlight: z.number().int(),
    callsInFlight: z.number().int().openapi({ description: "Its calls queued, ringing or in progress now." }),
    recipientCount: z.number().int(),
    counts: recipientCountsSchema,
    metadata: z.record(z.string(), z.unknown()),
    startedAt: time().nullable(),
    completedAt: time().nullable(),
    createdAt: time(),
    updatedAt: time(),
  })
  .openapi("Campaign");

export type CampaignView = z.infer<typeof campaignSchema>;

export const campaignPageSchema = pageSchema(campaignSchema, "CampaignPage");

export const listCampaignsQuerySchema = z.strictObject({
  ...pageQuerySchema.shape,
  status: z.enum(CAMPAIGN_STATUSES).optional().openapi({ description: "Only campaigns in this status." }),
});

export const recipientSchema = z
  .object({
    id: z.uuid().openapi({ example: EXAMPLE_ID }),
    row: z.number().int().openapi({ description: "Its place in the upload, from 1." }),
    phoneNumber: z.string().openapi({ example: "+14155550123" }),
    timezone: z.string().nullable(),
    variables: z.record(z.string(), z.string()),
    state: z.enum(RECIPIENT_STATES).openapi({ description: 'docs/campaigns.md, "States".' }),
    attempts: z.number().int().openapi({ description: "Calls placed to it so far." }),
    nextAttemptAt: time().nullable().openapi({ description: "Not called again before this time (a retry's delay)." }),
    lastCallId: z.uuid().nullable().openapi({ description: "Its latest call (GET /v1/calls/{id})." }),
    lastEndedReason: z.string().nullable(),
    createdAt: time(),
    updatedAt: time(),
  })
  .openapi("CampaignRecipient");

export type RecipientView = z.infer<typeof recipientSchema>;

export const recipientPageSchema = pageSchema(recipientSchema, "CampaignRecipientPage");

export const listRecipientsQuerySchema = z.strictObject({
  ...pageQuerySchema.shape,
  state: z.enum(RECIPIENT_STATES).optional().openapi({ description: "Only recipients in this state." }),
});

export type ListRecipientsQuery = z.infer<typeof listRecipientsQuerySchema>;
