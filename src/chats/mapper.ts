// A chat as the API and the dashboard show it: its row, its usage and
// (for one chat) its transcript (src/chats/service.ts reads them), mapped without a query.
import type { Chat } from "../db/schema";
import { toCredits } from "../lib/credits";
import type { ChatSummaryView, ChatView } from "./schema";
import type { ChatRow, ChatTurn, ChatUsage } from "./service";

const SPEAKERS = { agent: "Agent", user: "User", tool: "Tool" } as const;
const speaker = (role: ChatTurn["role"]) => SPEAKERS[role];

/** The widget or the messaging channel a chat came through (null once it is deleted). */
export const channelIdOf = (chat: Pick<Chat, "channel" | "widgetId" | "channelId">): string | null =>
  chat.channel === "widget" ? chat.widgetId : chat.channelId;

/** The turns in the order they were appended, and the same as text (`Agent: …` / `User: …` lines, as the webhooks carry it). */
export function chatTranscript(turns: readonly ChatTurn[]): ChatView["transcript"] {
  return {
    fullText: turns.map((t) => `${speaker(t.role)}: ${t.text}`).join("\n"),
    turns: turns.map((t) => ({
      role: t.role,
      text: t.text,
      at: t.at,
      ...(t.kind ? { kind: t.kind } : {}),
      ...(t.undelivered ? { undelivered: t.undelivered } : {}),
      ...(t.tool ? { tool: t.tool } : {}),
      ...(t.knowledge ? { knowledge: t.knowledge } : {}),
    })),
  };
}

/** Audio milliseconds as seconds to a tenth, as a call's cost shows them. */
const seconds = (ms: number) => Math.round(ms / 100) / 10;

export const chatCost = (u: ChatUsage): ChatSummaryView["cost"] => ({
  credits: toCredits(u.micro),
  micro: u.micro,
  requests: u.requests,
  llm: {
    quantity: u.llm.tokens,
    unit: "tokens",
    credits: toCredits(u.llm.micro),
    promptTokens: u.llm.promptTokens,
    completionTokens: u.llm.completionTokens,
  },
  stt: { quantity: seconds(u.stt.audioMs), unit: "seconds", credits: toCredits(u.stt.micro) },
  tts: { quantity: u.tts.characters, unit: "characters", credits: toCredits(u.tts.micro) },
});

export const toChatSummary = (chat: ChatRow, usage: ChatUsage): ChatSummaryView => ({
  id: chat.id,
  channel: chat.channel,
  channelId: channelIdOf(chat),
  agentId: chat.agentId,
  agentName: chat.agentName,
  agentVersion: chat.agentVersion,
  status: chat.status,
  endedReason: chat.endedReason,
  endUser: { id: chat.endUserId, name: chat.endUserName, origin: chat.origin },
  messageCount: chat.messageCount,
  toolCallCount: chat.toolCallCount,
  startedAt: chat.startedAt.toISOString(),
  endedAt: chat.endedAt?.toISOString() ?? null,
  lastActivityAt: chat.lastActivityAt.toISOString(),
  cost: chatCost(usage),
});

export const toChatView = (chat: ChatRow, usage: ChatUsage, transcript: readonly ChatTurn[]): ChatView => ({
  ...toChatSummary(chat, usage),
  transcript: chatTranscript(transcript),
});
