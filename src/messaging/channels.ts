// Messaging channels: connect (check the credentials with the provider, seal them, and for
// Telegram point the bot's webhook at us), list, read, change, pause, check, remove. Plain
// functions of (deps, organizationId, input), shared by /v1/channels and the dashboard; every
// query is scoped by the organization, another workspace's channel is simply not found (the
// statements are in queries.ts).

import { findAgentAt } from "../agents/versions";
import { endChannelChats } from "../chats/runtime";
import type { Db } from "../db/client";
import { isUniqueViolation } from "../db/errors";
import { pageQuery } from "../db/pagination";
import { type ChannelInfo, type ChannelType, type MessagingChannel, messagingChannels } from "../db/schema";
import type { AppConfig } from "../env";
import { randomBase62 } from "../lib/crypto";
import { ApiError } from "../lib/errors";
import { isUuid, newId } from "../lib/ids";
import { type Page, type PageParams, pageOf } from "../lib/pagination";
import { openSecret, sealSecret } from "../lib/secrets";
import type { DomainContext, Op } from "../services";
import { publicOrigin } from "../webhooks/endpoints";
import type { SealedColumn } from "../webhooks/secret-store";
import { MessagingApiError, type MessagingCallOptions } from "./http";
import {
  type ChannelFilters,
  deleteChannelRow,
  insertChannel,
  selectChannel,
  selectChannelById,
  selectChannels,
  updateChannelRow,
} from "./queries";
import type { ChannelCheck, CreateChannelInput, UpdateChannelInput } from "./schema";
import { DEFAULT_IDLE_TIMEOUT_SECONDS } from "./schema";
import { TelegramBot } from "./telegram";
import { WhatsAppNumber } from "./whatsapp";

export type { MessagingChannel };

export interface TelegramCredentials {
  botToken: string;
  /** Ours: Telegram sends it back in X-Telegram-Bot-Api-Secret-Token with every update. */
  secretToken: string;
}
export interface WhatsAppCredentials {
  phoneNumberId: string;
  accessToken: string;
  appSecret: string;
  verifyToken: string;
}
export type Credentials = TelegramCredentials | WhatsAppCredentials;

export const channelNotFound = () => new ApiError("not_found", "No channel with that id in this workspace.");

const AGENT_MESSAGE = "no agent with this id in this workspace";
const unknownAgent = () =>
  new ApiError("validation_failed", `Invalid json: agentId: ${AGENT_MESSAGE}`, { issues: [{ path: "agentId", message: AGENT_MESSAGE }] });

/** Where the provider sends a channel's messages (src/routes/channels/). */
export const webhookPath = (channel: Pick<MessagingChannel, "id" | "type">) => `/channels/${channel.type}/${channel.id}`;

/** Where the channels' sealed credentials are stored (`npm run admin -- secrets reseal` re-seals them). */
export const channelCredentialsColumn: SealedColumn = {
  place: "messaging_channels.credentials",
  table: messagingChannels,
  id: messagingChannels.id,
  value: messagingChannels.credentials,
  organizationId: messagingChannels.organizationId,
};

/** The additional data of a channel's sealed credentials: a value moved to another row does not open. */
const place = (channelId: string) => `${channelCredentialsColumn.place}:${channelId}`;

export async function openCredentials<T extends Credentials>(
  config: Pick<AppConfig, "SECRETS_KEK">,
  channel: MessagingChannel,
): Promise<T> {
  return JSON.parse(await openSecret(config.SECRETS_KEK, channel.credentials, place(channel.id))) as T;
}

const callOptions = (config: AppConfig): MessagingCallOptions => ({
  timeoutMs: Math.min(config.PROVIDER_TIMEOUT_MS, 15_000),
  retries: config.PROVIDER_RETRIES,
});

export const telegramBot = (config: AppConfig, credentials: Pick<TelegramCredentials, "botToken">) =>
  new TelegramBot(config.TELEGRAM_API_BASE_URL, credentials.botToken, callOptions(config));

export const whatsAppNumber = (config: AppConfig, credentials: Pick<WhatsAppCredentials, "phoneNumberId" | "accessToken">) =>
  new WhatsAppNumber(
    config.WHATSAPP_API_BASE_URL,
    config.WHATSAPP_GRAPH_VERSION,
    credentials.phoneNumberId,
    credentials.accessToken,
    callOptions(config),
  );

/** A provider's refusal of the credentials (401, 403, 404 of the number) is the caller's to fix; anything else is the provider's failure. */
function providerProblem(err: unknown, type: ChannelType): ApiError {
  if (err instanceof ApiError) return err;
  const name = type === "telegram" ? "Telegram" : "WhatsApp";
  if (err instanceof MessagingApiError && err.status !== null && [400, 401, 403, 404].includes(err.status)) {
    const what = type === "telegram" ? "Check the bot token (from @BotFather)." : "Check the phone number id and the access token.";
    return new ApiError("channel_credentials_rejected", `${name} refused the credentials: ${err.description}. ${what}`);
  }
  const why = err instanceof MessagingApiError ? err.description : "an unexpected answer";
  return new ApiError("channel_provider_error", `${name} failed (${why}); nothing was changed. Retry.`);
}

/** Checks the credentials with the provider; returns the channel's external id and public info. */
async function identify(config: AppConfig, input: CreateChannelInput): Promise<{ externalId: string; info: ChannelInfo }> {
  try {
    if (input.type === "telegram") {
      const me = await telegramBot(config, input.credentials).getMe();
      return { externalId: String(me.id), info: { botId: String(me.id), botUsername: me.username } };
    }
    const number = await whatsAppNumber(config, input.credentials).details();
    return {
      externalId: input.credentials.phoneNumberId,
      info: { phoneNumberId: input.credentials.phoneNumberId, displayPhoneNumber: number.display_phone_number },
    };
  } catch (err) {
    throw providerProblem(err, input.type);
  }
}

/**
 * Connects a channel: the credentials are checked with the provider first (nothing is saved when
 * they are refused), sealed, and the row written; a Telegram bot's webhook is then pointed at us
 * with a fresh secret token (when Telegram refuses, the row is removed again).
 */
export async function createChannel({
  ctx: deps,
  input,
}: Op<CreateChannelInput, keyof DomainContext | "organizationId">): Promise<MessagingChannel> {
  const { db, config, organizationId } = deps;
  if (!(await findAgentAt({ ctx: { db, organizationId }, input: { id: input.agentId, version: input.agentVersion } })))
    throw unknownAgent();
  const { externalId, info } = await identify(config, input);
  const credentials: Credentials =
    input.type === "telegram" ? { botToken: input.credentials.botToken, secretToken: randomBase62(48) } : { ...input.credentials };
  const rowId = newId();
  let row: MessagingChannel | undefined;
  try {
    row = await insertChannel(db, {
      id: rowId,
      organizationId,
      agentId: input.agentId,
      agentVersion: input.agentVersion,
      type: input.type,
      name: input.name,
      externalId,
      info,
      credentials: await sealSecret(config.SECRETS_KEK, JSON.stringify(credentials), place(rowId)),
      idleTimeoutSeconds: input.idleTimeoutSeconds ?? DEFAULT_IDLE_TIMEOUT_SECONDS,
    });
  } catch (err) {
    if (isUniqueViolation(err))
      throw new ApiError(
        "channel_taken",
        `This ${input.type === "telegram" ? "Telegram bot" : "WhatsApp number"} is connected to a channel already. Remove that channel first.`,
      );
    throw err;
  }
  if (!row) throw new Error("insert returned no row");
  if (input.type === "telegram") {
    try {
      await telegramBot(config, credentials as TelegramCredentials).setWebhook(
        `${publicOrigin(deps.config, deps.origin)}${webhookPath(row)}`,
        (credentials as TelegramCredentials).secretToken,
      );
    } catch (err) {
      await deleteChannelRow(db, organizationId, row.id);
      throw providerProblem(err, "telegram");
    }
  }
  return row;
}

/** The workspace's channel by id, or null. */
export async function findChannel({ ctx, input: { id } }: Op<{ id: string }>): Promise<MessagingChannel | null> {
  if (!isUuid(id)) return null;
  return selectChannel(ctx.db, ctx.organizationId, id);
}

export async function getChannel(args: Op<{ id: string }>): Promise<MessagingChannel> {
  const row = await findChannel(args);
  if (!row) throw channelNotFound();
  return row;
}

/** A channel by id whatever its workspace: the provider's webhook names only the channel. */
export async function channelById(db: Db, id: string): Promise<MessagingChannel | null> {
  if (!isUuid(id)) return null;
  return selectChannelById(db, id);
}

export async function listChannels({ ctx, input: params }: Op<PageParams & ChannelFilters>): Promise<Page<MessagingChannel>> {
  const page = pageQuery(params);
  const rows = await selectChannels(ctx.db, ctx.organizationId, page, params);
  return pageOf(rows, page.limit, (row) => row);
}

/**
 * Only the fields sent change. A paused channel acknowledges messages and answers none. A version
 * belongs to its agent: another agent without `agentVersion` runs its live version.
 */
export async function updateChannel({ ctx, input: { id, ...input } }: Op<UpdateChannelInput & { id: string }>): Promise<MessagingChannel> {
  const { db, organizationId } = ctx;
  if (!isUuid(id)) throw channelNotFound();
  if (input.agentId !== undefined || input.agentVersion !== undefined) {
    const current = await getChannel({ ctx, input: { id } });
    const agentId = input.agentId ?? current.agentId;
    if (input.agentVersion === undefined && agentId !== current.agentId) input.agentVersion = null;
    if (!(await findAgentAt({ ctx: { db, organizationId }, input: { id: agentId, version: input.agentVersion ?? null } })))
      throw unknownAgent();
  }
  const row = await updateChannelRow(db, organizationId, id, input);
  if (!row) throw channelNotFound();
  return row;
}

/**
 * Removes a channel: its open conversations end (`channel-removed`, with their
 * `<type>.completed`), the Telegram bot's webhook is deleted (best effort: a bot whose token was
 * revoked meanwhile cannot be told), then the row. Transcripts stay.
 */
export async function deleteChannel({
  ctx: deps,
  input: { id },
}: Op<{ id: string }, keyof DomainContext | "organizationId">): Promise<void> {
  const { organizationId } = deps;
  const channel = await getChannel({ ctx: deps, input: { id } });
  await endChannelChats(deps, channel.id, "channel-removed");
  if (channel.type === "telegram") {
    const credentials = await openCredentials<TelegramCredentials>(deps.config, channel);
    await telegramBot(deps.config, credentials)
      .deleteWebhook()
      .catch(() => undefined);
  }
  await deleteChannelRow(deps.db, organizationId, channel.id);
}

/** The dashboard's and the API's "Test": do the credentials still work, and where do messages go? */
export async function checkChannel({
  ctx: deps,
  input: { id },
}: Op<{ id: string }, keyof DomainContext | "organizationId">): Promise<ChannelCheck> {
  const channel = await getChannel({ ctx: deps, input: { id } });
  const checkedAt = new Date().toISOString();
  try {
    if (channel.type === "telegram") {
      const credentials = await openCredentials<TelegramCredentials>(deps.config, channel);
      const bot = telegramBot(deps.config, credentials);
      const me = await bot.getMe();
      const hook = await bot.getWebhookInfo();
      const expected = `${publicOrigin(deps.config, deps.origin)}${webhookPath(channel)}`;
      const ours = hook.url === expected;
      return {
        ok: ours && !hook.last_error_message,
        checkedAt,
        detail: ours
          ? `@${me.username ?? me.id} answers; its webhook points at this channel${hook.last_error_message ? `, but Telegram's last delivery failed: ${hook.last_error_message}` : ""}.`
          : `@${me.username ?? me.id} answers, but its webhook points elsewhere (${hook.url || "nowhere"}): another service took the bot. Remove and connect the channel again.`,
        webhook: { url: hook.url || null, pendingUpdates: hook.pending_update_count, lastError: hook.last_error_message ?? null },
      };
    }
    const credentials = await openCredentials<WhatsAppCredentials>(deps.config, channel);
    const number = await whatsAppNumber(deps.config, credentials).details();
    return {
      ok: true,
      checkedAt,
      detail: `The access token reaches ${number.display_phone_number ?? credentials.phoneNumberId}. Meta's webhook settings are not visible to the number: send it a message to check them.`,
      webhook: null,
    };
  } catch (err) {
    const problem = providerProblem(err, channel.type);
    return { ok: false, checkedAt, detail: problem.message, webhook: null };
  }
}
