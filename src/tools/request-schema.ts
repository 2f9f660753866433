// The tool request as a zod schema: the body the platform POSTs to a tool's server (invoke.ts
// builds it typed by this schema), and its place in the OpenAPI document, under `webhooks` as
// `tool.call`, since it is signed exactly like a webhook delivery. The SDK's tool request type is
// generated from that entry (packages/sdk/src/tools.ts), so it cannot drift from what is sent.
import { type OpenAPIHono, z } from "@hono/zod-openapi";
import { CHAT_CHANNELS } from "../chats/schema";
import { publicSecurity } from "../lib/openapi";

export const TOOL_EVENT = "tool.call";
/** The most of an answer that is read; a longer one is a failure (the model's context is not a dump). */
export const TOOL_RESPONSE_CAP = 16 * 1024;

/**
 * Where a tool can be called in a chat: a chat's channel, `dashboard` (the test chat of an agent's
 * page, stored nowhere) or `test` (an agent test's run, docs/agent-tests.md).
 */
export const TOOL_CHAT_CHANNELS = [...CHAT_CHANNELS, "dashboard", "test"] as const;
export type ToolChatChannel = (typeof TOOL_CHAT_CHANNELS)[number];

const EXAMPLE_ID = "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77";

export const toolRequestSchema = z
  .strictObject({
    id: z.uuid().openapi({
      description: "The request's id (UUID v7), also in `X-Service-Delivery-Id`: a new one per tool call, never retried. Serve each once.",
      example: EXAMPLE_ID,
    }),
    event: z.literal(TOOL_EVENT),
    timestamp: z.iso.datetime().openapi({ description: "When the request was made.", example: "2026-03-01T10:00:00.000Z" }),
    toolCall: z.strictObject({
      id: z.string().openapi({ description: "The model's id for this call.", example: "call_abc123" }),
      name: z.string().openapi({ description: "The tool's name.", example: "lookup_order" }),
      arguments: z.unknown().openapi({
        description: "The model's arguments, checked against the tool's `parameters` schema before sending.",
        example: { orderId: "42" },
      }),
    }),
    chat: z
      .strictObject({ id: z.uuid(), channel: z.enum(TOOL_CHAT_CHANNELS) })
      .nullable()
      .openapi({
        description:
          "The chat the tool is called in (widget or messaging; `dashboard`: the test chat of the agent's dashboard page, whose id names no stored chat; `test`: an agent test's run, `id` the run's); null on a call.",
      }),
    call: z
      .strictObject({ id: z.uuid() })
      .nullable()
      .openapi({ description: "The phone or web call the tool is called in; null in a chat." }),
    agent: z.strictObject({ id: z.uuid(), name: z.string() }),
    metadata: z.record(z.string(), z.unknown()).openapi({ description: "The agent's metadata." }),
  })
  .openapi("ToolRequest", { description: "One call of an agent's tool, POSTed to the tool's `url` (docs/tools.md)." });

export type ToolRequestPayload = z.infer<typeof toolRequestSchema>;

/** OpenAPI 3.1 `webhooks`: `tool.call`, the request a tool's server receives, and what it answers. */
export function registerToolRequest(app: Pick<OpenAPIHono, "openAPIRegistry">): void {
  app.openAPIRegistry.registerWebhook({
    method: "post",
    path: TOOL_EVENT,
    operationId: "toolCall",
    tags: ["Tool requests"],
    security: publicSecurity,
    summary: "tool.call: sent to a tool's server when the agent calls it",
    description:
      "Signed with the agent's `toolSecret` exactly like a webhook delivery (`X-Service-Signature`). Answer 2xx with a JSON body of at most 16 KB: the model reads it as is. Anything else (a timeout, a non-2xx, a body that is not JSON) is a failed tool call, spoken about; never retried.",
    request: {
      headers: z.object({
        "x-service-signature": z.string().openapi({
          description: '`t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">`, keyed with the agent\'s toolSecret (docs/tools.md).',
        }),
        "x-service-delivery-id": z.uuid().openapi({ description: "The body's `id`." }),
        "x-service-event": z.literal(TOOL_EVENT),
      }),
      body: { required: true, content: { "application/json": { schema: toolRequestSchema } } },
    },
    responses: {
      200: {
        description: `Any 2xx with a JSON body (at most ${TOOL_RESPONSE_CAP} bytes): the tool's result, given to the model as is.`,
        content: { "application/json": { schema: z.unknown().openapi({ example: { status: "shipped", carrier: "Parcelo" } }) } },
      },
    },
  });
}
