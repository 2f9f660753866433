// The channel's API shapes (zod, at the edge): what a workspace sends to connect a Telegram bot or
// a WhatsApp Business number, and what it gets back. Credentials are write-only.
import { z } from "@hono/zod-openapi";
import { agentVersionField } from "../agents/versions-schema";
import { CHANNEL_TYPES } from "../db/schema";
import { NON_EMPTY_PATCH, nonEmptyPatch, text } from "../lib/fields";

/** A conversation with no message for this long ends (`inactivity`): 1 minute to 7 days, 30 minutes by default. */
export const DEFAULT_IDLE_TIMEOUT_SECONDS = 1800;
const idleTimeoutSchema = z
  .number()
  .int()
  .min(60)
  .max(7 * 86_400)
  .openapi({ description: "Seconds without a message after which a conversation ends. Default 1800 (30 minutes)." });
const nameSchema = text({ min: 1, max: 100, trim: true, singleLine: true }).openapi({ example: "Support bot" });

const telegramCredentials = z
  .strictObject({
    botToken: z
      .string()
      .regex(/^\d{3,20}:[A-Za-z0-9_-]{30,60}$/, "a bot token from @BotFather looks like 123456789:AA…")
      .openapi({ description: "The bot's token from @BotFather. Write-only." }),
  })
  .openapi("TelegramCredentials");

const whatsappCredentials = z
  .strictObject({
    phoneNumberId: z
      .string()
      .regex(/^\d{5,30}$/, "the phone number id of the WhatsApp Business number (digits, from the app's WhatsApp settings)")
      .openapi({ description: "The business number's id in the Cloud API (not the phone number itself)." }),
    accessToken: z
      .string()
      .min(20)
      .max(1000)
      .openapi({ description: "A system user's access token with whatsapp_business_messaging. Write-only." }),
    appSecret: z
      .string()
      .min(16)
      .max(200)
      .openapi({ description: "The Meta app's secret: signs every notification (X-Hub-Signature-256). Write-only." }),
    verifyToken: z
      .string()
      .min(8)
      .max(200)
      .openapi({ description: "The verify token you enter with the callback URL in the app's webhook settings. Write-only." }),
  })
  .openapi("WhatsAppCredentials");

const agentVersionSchema = agentVersionField(
  'The agent\'s version its conversations run, a draft too; null (the default): the live version. Changing `agentId` without it goes back to null. 404 when the agent has no such version (docs/agents.md, "Versions").',
).nullable();

const common = {
  name: nameSchema,
  agentId: z.uuid().openapi({ description: "The agent that answers in this channel." }),
  agentVersion: agentVersionSchema.default(null),
  idleTimeoutSeconds: idleTimeoutSchema.optional(),
};

export const createChannelSchema = z
  .discriminatedUnion("type", [
    z.strictObject({ type: z.literal("telegram"), ...common, credentials: telegramCredentials }),
    z.strictObject({ type: z.literal("whatsapp"), ...common, credentials: whatsappCredentials }),
  ])
  .openapi("CreateChannel", {
    example: {
      type: "telegram",
      name: "Support bot",
      agentId: "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77",
      credentials: { botToken: "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw" },
    },
  });

export type CreateChannelInput = z.infer<typeof createChannelSchema>;

export const updateChannelSchema = z
  .strictObject({
    name: nameSchema.optional(),
    agentId: z.uuid().optional(),
    agentVersion: agentVersionSchema.optional(),
    status: z.enum(["active", "paused"]).optional().openapi({ description: "A paused channel acknowledges messages and answers none." }),
    idleTimeoutSeconds: idleTimeoutSchema.optional(),
  })
  .refine(nonEmptyPatch, NON_EMPTY_PATCH)
  .openapi("UpdateChannel");

export type UpdateChannelInput = z.infer<typeof updateChannelSchema>;

export const channelSchema = z
  .object({
    id: z.string(),
    type: z.enum(CHANNEL_TYPES),
    name: z.string(),
    agentId: z.string(),
    agentVersion: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'The agent\'s version its conversations run; null: the live one (docs/agents.md, "Versions").' }),
    status: z.enum(["active", "paused"]),
    info: z
      .object({
        botId: z.string().optional(),
        botUsername: z.string().optional(),
        phoneNumberId: z.string().optional(),
        displayPhoneNumber: z.string().optional(),
      })
      .openapi({ description: "What the provider told us when the channel was connected (the bot's @username, the number)." }),
    idleTimeoutSeconds: z.number().int(),
    webhookUrl: z.string().openapi({
      description:
        "Where the provider sends messages. Telegram: set for you when the channel is created. WhatsApp: enter it, with your verify token, as the callback URL of your Meta app's webhook (field `messages`).",
    }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi("Channel");

export const channelFiltersSchema = z.object({
  type: z.enum(CHANNEL_TYPES).optional(),
  agentId: z.uuid().optional(),
  status: z.enum(["active", "paused"]).optional(),
});

export const channelCheckSchema = z
  .object({
    ok: z.boolean(),
    checkedAt: z.string(),
    detail: z.string().openapi({ description: "What was checked and what the provider said." }),
    webhook: z
      .object({ url: z.string().nullable(), pendingUpdates: z.number().int().nullable(), lastError: z.string().nullable() })
      .nullable()
      .openapi({
        description: "Telegram: the bot's webhook as Telegram reports it. WhatsApp: null (Meta does not report it to the number).",
      }),
  })
  .openapi("ChannelCheck");

export type ChannelCheck = z.infer<typeof channelCheckSchema>;
