// What the chat tests build: widget chats through the widget's public route (as the embedded
// script does, so the reply is metered and tagged with its session), and messaging channels and
// sessions written straight into the database with the harness's handle, as the messaging
// runtime stores them.
import { randomUUID } from "node:crypto";
import type { ChatView } from "../../../src/chats/schema";
import {
  type ChannelType,
  type Chat,
  type ChatTurn,
  chats,
  type MessagingChannel,
  messagingChannels,
  usageEvents,
} from "../../../src/db/schema";
import { json, testDb, type Workspace } from "../../support/harness";
import { chat, widgetRequest } from "../../support/widgets";

export type { ChatView };
export type ChatSummary = Omit<ChatView, "transcript">;
export interface ChatPage {
  data: ChatSummary[];
  nextCursor: string | null;
  hasMore: boolean;
}

export async function listChats(ws: Workspace, query = ""): Promise<ChatPage> {
  const res = await ws.api(`/v1/chats${query ? `?${query}` : ""}`);
  if (res.status !== 200) throw new Error(`GET /v1/chats?${query}: ${res.status} ${await res.text()}`);
  return json<ChatPage>(res);
}

export const listIds = async (ws: Workspace, query = "") => (await listChats(ws, query)).data.map((c) => c.id);

export async function getChat(ws: Workspace, id: string): Promise<ChatView> {
  const res = await ws.api(`/v1/chats/${id}`);
  if (res.status !== 200) throw new Error(`GET /v1/chats/${id}: ${res.status} ${await res.text()}`);
  return json<ChatView>(res);
}

/** A widget chat: the visitor's messages, each answered by the agent; ended by the visitor when asked. */
export async function widgetChat(token: string, visitorId: string, messages: string[], end = false): Promise<string> {
  let sessionId: string | null = null;
  for (const message of messages) sessionId = (await chat(token, { visitorId, sessionId, message })).sessionId;
  if (!sessionId) throw new Error("no message sent");
  if (end) {
    const res = await widgetRequest(`/widget/v1/sessions/${sessionId}/end`, { token, json: { visitorId } });
    if (res.status !== 204) throw new Error(`end: ${res.status} ${await res.text()}`);
  }
  return sessionId;
}

/** A connected Telegram bot or WhatsApp number of the workspace (credentials are never read here). */
export async function insertChannel(ws: Workspace, agentId: string, type: ChannelType): Promise<MessagingChannel> {
  const [row] = await testDb()
    .insert(messagingChannels)
    .values({
      organizationId: ws.organizationId,
      agentId,
      type,
      name: `${type} channel`,
      externalId: randomUUID(),
      credentials: "sealed-elsewhere",
    })
    .returning();
  if (!row) throw new Error("no channel row");
  return row;
}

const turn = (role: ChatTurn["role"], text: string, extra: Partial<ChatTurn> = {}): ChatTurn => ({
  role,
  text,
  at: new Date().toISOString(),
  ...extra,
});

export const MESSAGING_TRANSCRIPT: ChatTurn[] = [
  turn("user", "Hi, are you open on Sunday?", { kind: "text" }),
  turn("agent", "Yes, from 10 to 16."),
  turn("user", "[sticker]", { kind: "unsupported" }),
  turn("agent", "I can only read text and voice messages."),
];

/** A messaging session as the runtime stores it; completed ones are ended by the end user. */
export async function insertSession(
  ws: Workspace,
  input: {
    channel: MessagingChannel;
    agentName?: string;
    status?: Chat["status"];
    transcript?: ChatTurn[];
  },
): Promise<Chat> {
  const transcript = input.transcript ?? MESSAGING_TRANSCRIPT;
  const completed = input.status === "completed";
  const [row] = await testDb()
    .insert(chats)
    .values({
      organizationId: ws.organizationId,
      channelId: input.channel.id,
      channel: input.channel.type,
      agentId: input.channel.agentId,
      agentName: input.agentName ?? "Call agent",
      endUserId: String(100_000_000 + Math.floor(Math.random() * 900_000_000)),
      endUserName: "Ada Lovelace",
      status: input.status ?? "in-progress",
      endedReason: completed ? "user-ended" : null,
      endedAt: completed ? new Date() : null,
      transcript,
      messageCount: transcript.length,
    })
    .returning();
  if (!row) throw new Error("no session row");
  return row;
}

/** A metered use tagged with a chat, as the metering path writes it (successful unless a status is given). */
export async function insertUsage(
  ws: Workspace,
  chatId: string,
  use: { modality: "chat" | "stt" | "tts"; quantity: number; costMicro: number; status?: number },
): Promise<void> {
  const unit = { chat: "tokens", stt: "audio_ms", tts: "characters" } as const;
  await testDb()
    .insert(usageEvents)
    .values({
      organizationId: ws.organizationId,
      apiKeyId: null,
      method: "POST",
      endpoint: "/messaging/telegram",
      modality: use.modality,
      provider: "sandbox",
      model: "whisper-1",
      status: use.status ?? 200,
      errorCode: use.status && use.status !== 200 ? "insufficient_credits" : null,
      latencyMs: 5,
      unit: unit[use.modality],
      quantity: use.quantity,
      costMicro: use.status && use.status !== 200 ? 0 : use.costMicro,
      chatId,
    });
}
