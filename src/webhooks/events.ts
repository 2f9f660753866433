// The event catalogue (spec: Events). Channels drive which events an endpoint may select.
export const CHANNELS = ["voice", "chat", "widget"] as const;
export type Channel = (typeof CHANNELS)[number];

export const EVENTS_BY_CHANNEL: Record<Channel, readonly string[]> = {
  // A campaign's events are its calls' channel's: an endpoint of the voice channel may select them (docs/campaigns.md, "Events").
  voice: ["call.started", "call.completed", "call.failed", "call.analyzed", "campaign.started", "campaign.completed"],
  widget: ["widget.started", "widget.completed"],
  // Messaging sessions are named after their channel type; chat.* are selectable but never dispatched (spec).
  // An agent test's run is a text conversation (docs/agent-tests.md, "Webhook"): an endpoint of the chat channel may select it.
  chat: [
    "chat.started",
    "chat.completed",
    "whatsapp.started",
    "whatsapp.completed",
    "telegram.started",
    "telegram.completed",
    "sms.started",
    "sms.completed",
    "messenger.started",
    "messenger.completed",
    "test_run.completed",
  ],
};

/** Selectable but never sent (spec: "chat.started and chat.completed can be selected but are not dispatched"). */
export const NEVER_DISPATCHED = new Set(["chat.started", "chat.completed"]);

export const ALL_EVENTS = Object.values(EVENTS_BY_CHANNEL).flat();

/**
 * The events this platform sends: calls, widget chats, and the messaging channels it has
 * (WhatsApp, Telegram). The spec's catalogue also names SMS and Messenger sessions, which stay
 * selectable through the API but which nothing here dispatches; the dashboard's picker offers only
 * these (and keeps an endpoint's other events checked, so saving its form drops none).
 */
export const PLATFORM_EVENTS: ReadonlySet<string> = new Set(
  ALL_EVENTS.filter((e) => !NEVER_DISPATCHED.has(e) && !e.startsWith("sms.") && !e.startsWith("messenger.")),
);

export const eventsFor = (channels: readonly Channel[]): string[] => channels.flatMap((c) => EVENTS_BY_CHANNEL[c]);

/**
 * The `channel` value inside a payload: `voice`, `widget`, the messaging channel type (`whatsapp`),
 * `campaign` (campaign.* events, selected under the voice channel) or `test_run` (test_run.* events,
 * selected under the chat channel), so a receiver can narrow on it.
 */
export const payloadChannel = (event: string): string => {
  const prefix = event.split(".")[0] ?? "";
  if (prefix === "call") return "voice";
  return prefix;
};

/** A campaign's event (campaign.started, campaign.completed): its payload carries `campaign`, not `call`. */
export const isCampaignEvent = (event: string): boolean => event.startsWith("campaign.");

/** An agent test's event (test_run.completed): its payload carries `testRun`, not `chat`. */
export const isTestRunEvent = (event: string): boolean => event.startsWith("test_run.");

/** The OpenAPI document's `webhooks` entry of the `custom` payload mode (any event; src/webhooks/payload-schema.ts). */
export const CUSTOM_PAYLOAD_WEBHOOK = "custom-payload";
