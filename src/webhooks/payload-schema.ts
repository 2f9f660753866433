// The webhook payloads as zod schemas: the OpenAPI document's `webhooks` (one per event we send,
// registerWebhookEvents) and the types payload.ts builds with (its CallPayload, ChatPayload).
// The field lists that buildPayload and the `custom` mode's leaf paths use are checked against
// these shapes by the compiler (`satisfies`), and the tests validate real deliveries against
// the document, so the description cannot drift from what is sent.
import { type OpenAPIHono, z } from "@hono/zod-openapi";
import { testRunSchema } from "../agent-tests/schema";
import { campaignSchema } from "../campaigns/schema";
import { CHAT_STATUSES } from "../chats/schema";
import { CALL_DIRECTIONS, CALL_STATUSES, ENDED_REASON_VALUES, FAULT_CATEGORIES, TRANSFER_OUTCOMES } from "../db/schema/calls";
import { TOOL_OUTCOMES } from "../db/schema/tools";
import { publicSecurity } from "../lib/openapi";
import { ALL_EVENTS, CUSTOM_PAYLOAD_WEBHOOK, isCampaignEvent, isTestRunEvent, NEVER_DISPATCHED, payloadChannel } from "./events";
import type { CALL_FIELDS, CAMPAIGN_FIELDS, CHAT_FIELDS, TEST_RUN_FIELDS } from "./payload-fields";

const EXAMPLE_ID = "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77";
const time = () => z.iso.datetime().openapi({ example: "2025-01-15T09:30:00.000Z" });

/** Where the agent's transfer_call handed the caller on (docs/tools.md); the API's call and the webhooks' show the same. */
export const callTransfer = z
  .strictObject({
    number: z.string().openapi({ example: "+14155550100" }),
    name: z.string().nullable().openapi({ example: "billing" }),
    at: time(),
    outcome: z.enum(TRANSFER_OUTCOMES).nullable().openapi({
      description:
        "How the leg to the destination went once it ended (Twilio's DialCallStatus): `completed` (answered), `busy`, `no-answer`, `failed`, `canceled`; null until then (so always null in `call.completed`: read the call). On any but `completed` the caller hears that the transfer did not go through, then the call hangs up.",
    }),
    connectedSeconds: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "Seconds the caller was connected to the destination; null until the leg ended." }),
  })
  .openapi("CallTransfer", { description: "Where the agent's transfer_call handed the caller on (endedReason `transferred`)." });

/** Why an ended call has no analysis and gets none (docs/calls.md, "Analysis"). */
export const analysisSkipped = z.enum(["not-connected", "no-caller-speech"]).nullable().openapi({
  description:
    "Why the call is not analysed (no `call.analyzed` follows): `not-connected` (it never connected) or `no-caller-speech` (the caller said nothing); null while an analysis may come, once it is there, or when it failed (`analysisError`).",
});

/** A campaign's call: its campaign and the recipient row it dialled (docs/campaigns.md); null for any other call. */
export const campaignId = z.uuid().nullable().openapi({ description: "The campaign that placed the call; null when no campaign did." });
export const campaignRecipientId = z
  .uuid()
  .nullable()
  .openapi({ description: "The campaign's recipient (row) the call dialled; null when no campaign placed the call." });

/** The agent's version a call or chat ran with (docs/agents.md, "Versions"). */
const agentVersion = z
  .number()
  .int()
  .nullable()
  .openapi({ description: "The agent's version it ran with; null when it began before agents had versions.", example: 2 });

const callShape = {
  id: z.uuid().openapi({ example: EXAMPLE_ID }),
  status: z.enum(CALL_STATUSES),
  direction: z.enum(CALL_DIRECTIONS).nullable().openapi({
    description:
      "`outbound` and `inbound`: a phone call, dialled by us or ringing one of the workspace's numbers; `web`: an in-browser call, which has no phone leg (docs/calls.md, Direction).",
  }),
  durationSeconds: z.number().nullable().openapi({ description: "From connect to end, in seconds (tenths)." }),
  fromNumber: z.string().nullable(),
  toNumber: z.string().nullable(),
  agentId: z.uuid().nullable().openapi({ description: "Null once the agent was deleted (agentName stays)." }),
  agentName: z.string().nullable(),
  agentVersion,
  startedAt: time().nullable(),
  endedAt: time().nullable(),
  endedReason: z
    .enum(ENDED_REASON_VALUES)
    .nullable()
    .openapi({ description: "Why the call ended (docs/calls.md, Statuses); null until it has.", example: "transferred" }),
  endedReasonCategory: z
    .enum(FAULT_CATEGORIES)
    .nullable()
    .openapi({ description: "`none` for a normal end, else where the fault lies; null until the call ended." }),
  transfer: callTransfer.nullable(),
  analysisSkipped,
  campaignId,
  campaignRecipientId,
} satisfies Record<(typeof CALL_FIELDS)[number], z.ZodType>;

const chatShape = {
  id: z.uuid().openapi({ example: EXAMPLE_ID }),
  status: z.enum(CHAT_STATUSES),
  agentId: z.uuid().nullable(),
  agentName: z.string().nullable(),
  agentVersion,
  startedAt: time().nullable(),
  endedAt: time().nullable(),
  messageCount: z.number().int().nullable(),
  channelId: z.uuid().nullable().openapi({ description: "The widget's or the messaging channel's id (null once deleted)." }),
  endUserId: z.string().nullable().openapi({ description: "The widget's visitor id, the Telegram chat id, the WhatsApp user's number." }),
  endUserName: z
    .string()
    .nullable()
    .openapi({ description: "The name the messaging provider gives the end user; null for widget visitors." }),
} satisfies Record<(typeof CHAT_FIELDS)[number], z.ZodType>;

/** A campaign event's `campaign`: the API's Campaign (src/campaigns/schema.ts), field for field. */
const campaignShape = campaignSchema.shape satisfies Record<(typeof CAMPAIGN_FIELDS)[number], z.ZodType>;

export const callPayloadSchema = z.strictObject(callShape);
export const campaignPayloadSchema = z.strictObject(campaignShape);
export type CampaignPayload = z.infer<typeof campaignPayloadSchema>;

/** A test_run event's `testRun`: the API's AgentTestRun (src/agent-tests/schema.ts), field for field. */
const testRunShape = testRunSchema.shape satisfies Record<(typeof TEST_RUN_FIELDS)[number], z.ZodType>;
export const testRunPayloadSchema = z.strictObject(testRunShape);
export type TestRunPayload = z.infer<typeof testRunPayloadSchema>;
export const chatPayloadSchema = z.strictObject(chatShape);
export type CallPayload = z.infer<typeof callPayloadSchema>;
export type ChatPayload = z.infer<typeof chatPayloadSchema>;

const role = z.enum(["agent", "user", "tool"]).openapi({ description: "`tool`: a call of one of the agent's tools (docs/tools.md)." });
const toolOfTurn = z
  .strictObject({
    name: z.string(),
    outcome: z.enum(TOOL_OUTCOMES),
    latencyMs: z.number(),
    statusCode: z.number().nullable().openapi({ description: "The tool server's HTTP status; null when it did not answer." }),
  })
  .optional()
  .openapi({ description: "On a tool turn: which tool, how it went, how long it took." });
/** An agent turn's latency trace (docs/calls.md, "Latency"). */
export const turnLatency = z
  .strictObject({
    voiceToVoiceMs: z.number().openapi({ description: "From the end of the caller's speech to the reply's first audio sent." }),
    endpointingMs: z.number().optional().openapi({ description: "Of it: until the caller's turn was judged over." }),
    sttMs: z.number().openapi({ description: "Of it: the transcript after the turn's end." }),
    llmMs: z.number().openapi({ description: "Of it: the LLM until its first chunk of text." }),
    ttsMs: z.number().openapi({ description: "Of it: that chunk's speech until its first audio." }),
    platformMs: z.number().openapi({ description: "Of it: the rest, the platform's own time." }),
    discardedTranscriptions: z
      .number()
      .int()
      .optional()
      .openapi({ description: "Speculative transcriptions of the caller's turn thrown away." }),
    retrievalMs: z.number().optional().openapi({
      description: "An agent that retrieves knowledge on every turn: of `llmMs`, the wait for the knowledge base's passages.",
    }),
    retrievalPrefetched: z.boolean().optional().openapi({
      description: "Those passages came from the search made while the caller was still speaking (docs/knowledge.md, Retrieval).",
    }),
  })
  .openapi("TurnLatency");
const callTurn = z.strictObject({
  role,
  text: z.string(),
  startMs: z.number().openapi({ description: "Milliseconds from the moment the call connected." }),
  endMs: z.number(),
  interrupted: z.literal(true).optional().openapi({ description: "The caller spoke over the agent; `text` is what it meant to say." }),
  dtmf: z.string().optional().openapi({ description: "Caller turns of keys pressed on the phone's keypad: the keys in order." }),
  tool: toolOfTurn,
  latency: turnLatency.optional().openapi({ description: "Agent replies: where the caller's wait went." }),
});
const chatTurn = z.strictObject({
  role,
  text: z.string(),
  kind: z
    .enum(["voice", "unsupported"])
    .optional()
    .openapi({ description: "A user turn that was not text: a voice note (its transcription) or an unsupported message." }),
  tool: toolOfTurn,
});
const transcript = (turn: typeof callTurn | typeof chatTurn) => z.strictObject({ fullText: z.string(), turns: z.array(turn) });
const callTranscript = transcript(callTurn);
const chatTranscript = transcript(chatTurn);
export type CallTranscript = z.infer<typeof callTranscript>;
export type ChatTranscript = z.infer<typeof chatTranscript>;
const recording = z.strictObject({
  url: z.string().openapi({ description: "GET it with an API key of the workspace." }),
  durationSeconds: z.string().openapi({ description: "Seconds, as a string (spec).", example: "42" }),
});
const analysis = z.strictObject({
  summary: z.string(),
  sentiment: z.enum(["positive", "neutral", "negative"]),
  topics: z.array(z.string()),
  actionItems: z.array(z.string()),
});
const report = z.strictObject({
  successScore: z.number(),
  criteriaResults: z.array(z.strictObject({ criterion: z.string(), passed: z.boolean(), reason: z.string().optional() })),
  extractedData: z.record(z.string(), z.unknown()),
});
const metadata = z.record(z.string(), z.unknown());

const envelope = {
  deliveryId: z
    .uuid()
    .openapi({ description: "The same across retries of one (event, endpoint); de-duplicate on it.", example: EXAMPLE_ID }),
  timestamp: time().openapi({ description: "When the event happened." }),
};

/** The full payload ("Send all fields") of one event; fields not ready are null. */
function eventPayloadSchema(event: string) {
  const channel = payloadChannel(event);
  if (isCampaignEvent(event))
    return z.strictObject({
      deliveryId: envelope.deliveryId,
      event: z.literal(event),
      channel: z.literal(channel),
      timestamp: envelope.timestamp,
      campaign: campaignPayloadSchema,
      metadata: metadata.nullable(),
    });
  if (isTestRunEvent(event))
    return z.strictObject({
      deliveryId: envelope.deliveryId,
      event: z.literal(event),
      channel: z.literal(channel),
      timestamp: envelope.timestamp,
      testRun: testRunPayloadSchema,
      metadata: metadata.nullable(),
    });
  const common = {
    deliveryId: envelope.deliveryId,
    event: z.literal(event),
    channel: z.literal(channel),
    timestamp: envelope.timestamp,
    recording: recording.nullable(),
    analysis: analysis.nullable(),
    report: report.nullable(),
    metadata: metadata.nullable(),
  };
  return channel === "voice"
    ? z.strictObject({ ...common, call: callPayloadSchema.nullable(), transcript: callTranscript.nullable() })
    : z.strictObject({ ...common, chat: chatPayloadSchema.nullable(), transcript: chatTranscript.nullable() });
}

/**
 * The `custom` payload mode: the envelope, and of the rest only the leaf paths the endpoint
 * selected (payload.ts LEAF_PATHS), nesting kept.
 */
export const customPayloadSchema = z
  .strictObject({
    ...envelope,
    event: z.enum(ALL_EVENTS as [string, ...string[]]),
    channel: z.string().optional(),
    call: z.strictObject(callShape).partial().nullable().optional(),
    chat: z.strictObject(chatShape).partial().nullable().optional(),
    campaign: z.strictObject(campaignShape).partial().nullable().optional(),
    testRun: z.strictObject(testRunShape).partial().nullable().optional(),
    transcript: z
      .strictObject({ fullText: z.string(), turns: z.array(z.union([callTurn, chatTurn])) })
      .partial()
      .nullable()
      .optional(),
    recording: recording.partial().nullable().optional(),
    analysis: analysis.partial().nullable().optional(),
    report: report.partial().nullable().optional(),
    metadata: metadata.nullable().optional(),
  })
  .openapi("WebhookCustomPayload", {
    description: "What an endpoint in `custom` payload mode receives: the envelope and the selected fields only.",
  });

/** The events we send: every selectable event but those the spec says are never dispatched. */
export const SENT_EVENTS = ALL_EVENTS.filter((e) => !NEVER_DISPATCHED.has(e));

const SIGNATURE_HEADERS = z.object({
  "x-service-signature": z.string().openapi({ description: '`t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">` (docs/webhooks.md).' }),
  "x-service-delivery-id": z.uuid().openapi({ description: "The payload's deliveryId." }),
});

/** OpenAPI 3.1 `webhooks`: one POST per event we send, its body the event's payload. */
export function registerWebhookEvents(app: Pick<OpenAPIHono, "openAPIRegistry">): void {
  app.openAPIRegistry.registerWebhook({
    method: "post",
    path: CUSTOM_PAYLOAD_WEBHOOK,
    operationId: "webhookCustomPayload",
    tags: ["Webhook events"],
    security: publicSecurity,
    summary: "Any event, to an endpoint in `custom` payload mode",
    description:
      "The envelope (`deliveryId`, `event`, `timestamp`) and only the leaf paths the endpoint selected, nesting kept; signed like every delivery.",
    request: { headers: SIGNATURE_HEADERS, body: { required: true, content: { "application/json": { schema: customPayloadSchema } } } },
    responses: { 200: { description: "Any 2xx acknowledges the delivery." } },
  });
  for (const event of SENT_EVENTS) {
    const name = `${event.replace(/(^|[._])(\w)/g, (_, __, c: string) => c.toUpperCase())}Payload`;
    app.openAPIRegistry.registerWebhook({
      method: "post",
      path: event,
      operationId: `webhook${name.replace(/Payload$/, "")}`,
      tags: ["Webhook events"],
      security: publicSecurity,
      summary: `${event}: sent to endpoints subscribed to it`,
      description:
        "Signed with the endpoint's secret (`X-Service-Signature`). An endpoint in `custom` payload mode receives a WebhookCustomPayload instead. Answer 2xx within the timeout; anything else is retried.",
      request: {
        headers: SIGNATURE_HEADERS,
        body: { required: true, content: { "application/json": { schema: eventPayloadSchema(event).openapi(name) } } },
      },
      responses: { 200: { description: "Any 2xx acknowledges the delivery." } },
    });
  }
}
