// The SDK's tool helpers (docs/tools.md, docs/sdk.md): constructToolRequest verifies a request the
// server's own code builds and signs (toolRequestBody, signPayload) and refuses a forged, stale,
// malformed or mismatched one with WebhookVerificationError; its type is the document's
// `tool.call`; toolResponse builds an answer the platform reads, and refuses one it would not.
// Against the real worker: test/integration/sdk/tools.test.ts.
import { describe, expect, expectTypeOf, it } from "vitest";
import {
  constructEvent,
  constructToolRequest,
  signPayload,
  TOOL_RESPONSE_LIMIT,
  type ToolRequest,
  type ToolRequestCall,
  type ToolRequestChat,
  toolResponse,
  toolResponseBody,
  VoiceAgentPlatform,
  WebhookVerificationError,
} from "../../../packages/sdk/src/index";
import { createApp } from "../../../src/app";
import { openApiDocument } from "../../../src/routes/public/openapi";
import { type ToolCallRequest, toolRequestBody } from "../../../src/tools/invoke";
import { TOOL_RESPONSE_CAP, toolRequestSchema } from "../../../src/tools/request-schema";
import { signPayload as serverSign } from "../../../src/webhooks/signature";

const SECRET = "tss_0123456789abcdefghijABCDEFGHIJ0123456789";
const AGENT_ID = "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77";
const CHAT_ID = "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b78";
const REQUEST_ID = "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b79";

const request: ToolCallRequest = {
  tool: {
    type: "function",
    name: "lookup_order",
    description: "Looks up an order.",
    parameters: { type: "object", properties: { orderId: { type: "string" } } },
    url: "https://tools.example.com/order",
    timeoutSeconds: 10,
    messages: {},
  },
  call: { id: "call_abc", arguments: '{"orderId":"42"}' },
  subject: { kind: "chat", id: CHAT_ID, channel: "widget" },
  agent: { id: AGENT_ID, name: "Order desk", metadata: { crm: "A-1" } },
  secret: SECRET,
};
/** What the platform sends, built and signed by the server's own functions. */
const sent = async (at = Math.floor(Date.now() / 1000)) => {
  const body = toolRequestBody(request, REQUEST_ID, { orderId: "42" }, new Date(at * 1000));
  return { body, signature: await serverSign(SECRET, body, at) };
};
const refusal = async (p: Promise<unknown>) => {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WebhookVerificationError);
  return (err as Error).message;
};

describe("constructToolRequest", () => {
  it("returns the request the server sends, as sent, typed by the document's tool.call", async () => {
    const { body, signature } = await sent();
    expect(toolRequestSchema.safeParse(JSON.parse(body)).success).toBe(true);
    const req = await constructToolRequest<{ orderId: string }>(body, signature, SECRET);
    expect(req).toEqual(JSON.parse(body));
    expect(req).toMatchObject({
      id: REQUEST_ID,
      event: "tool.call",
      toolCall: { id: "call_abc", name: "lookup_order", arguments: { orderId: "42" } },
      chat: { id: CHAT_ID, channel: "widget" },
      call: null,
      agent: { id: AGENT_ID, name: "Order desk" },
      metadata: { crm: "A-1" },
    });
    expectTypeOf(req.toolCall.arguments).toEqualTypeOf<{ orderId: string }>();
    expectTypeOf(req.chat).toEqualTypeOf<ToolRequestChat | null>();
    expectTypeOf(req.call).toEqualTypeOf<ToolRequestCall | null>();
    expectTypeOf<ToolRequestChat["channel"]>().toEqualTypeOf<"widget" | "telegram" | "whatsapp" | "dashboard" | "test">();
    expectTypeOf<ToolRequest["toolCall"]["arguments"]>().toEqualTypeOf<Record<string, unknown>>();
    // The client carries the same function.
    const client = new VoiceAgentPlatform({ apiKey: "sk-live-x", baseURL: "https://api.example.test" });
    await expect(client.tools.constructRequest(body, signature, SECRET)).resolves.toEqual(req);
  });

  it("takes the request's headers (fetch Headers or Node's), and then holds X-Service-Delivery-Id to the signed id", async () => {
    const { body, signature } = await sent();
    const fetchHeaders = new Headers({ "X-Service-Signature": signature, "X-Service-Delivery-Id": REQUEST_ID });
    await expect(constructToolRequest(body, fetchHeaders, SECRET)).resolves.toMatchObject({ id: REQUEST_ID });
    const nodeHeaders = { "x-service-signature": signature, "x-service-delivery-id": REQUEST_ID, "content-type": "application/json" };
    await expect(constructToolRequest(body, nodeHeaders, SECRET)).resolves.toMatchObject({ id: REQUEST_ID });
    // The header is not signed: another id there was changed on the way.
    const swapped = new Headers({ "x-service-signature": signature, "x-service-delivery-id": crypto.randomUUID() });
    expect(await refusal(constructToolRequest(body, swapped, SECRET))).toMatch(/X-Service-Delivery-Id header does not match/);
    expect(await refusal(constructToolRequest(body, new Headers({ "x-service-delivery-id": REQUEST_ID }), SECRET))).toMatch(
      /No X-Service-Signature header/,
    );
  });

  it("refuses a forged body, another agent's secret, a replay beyond the tolerance, and a future timestamp", async () => {
    const { body, signature } = await sent();
    const forged = body.replace('"42"', '"43"');
    expect(await refusal(constructToolRequest(forged, signature, SECRET))).toMatch(/No signature matches/);
    expect(await refusal(constructToolRequest(body, signature, `${SECRET.slice(0, -1)}x`))).toMatch(/No signature matches/);
    // Captured and replayed 301 s later: the signature is good, the timestamp is not.
    expect(await refusal(constructToolRequest(body, signature, SECRET, { now: Date.now() + 301_000 }))).toMatch(
      /beyond the 300 s tolerance/,
    );
    const stale = await sent(Math.floor(Date.now() / 1000) - 301);
    expect(await refusal(constructToolRequest(stale.body, stale.signature, SECRET))).toMatch(/tolerance/);
    await expect(constructToolRequest(stale.body, stale.signature, SECRET, { toleranceSeconds: 600 })).resolves.toBeTruthy();
    const future = await sent(Math.floor(Date.now() / 1000) + 600);
    expect(await refusal(constructToolRequest(future.body, future.signature, SECRET))).toMatch(/tolerance/);
    expect(await refusal(constructToolRequest(body, signature, ""))).toMatch(/tool secret \(toolSecret\) is required/);
    expect(await refusal(constructToolRequest(JSON.parse(body) as string, signature, SECRET))).toMatch(/raw request body/);
  });

  it("refuses a signed body that is not a tool request, and says so when it is a webhook event", async () => {
    const signed = async (value: unknown) => {
      const body = JSON.stringify(value);
      return constructToolRequest(body, await signPayload(body, SECRET), SECRET);
    };
    const { toolCall, ...noCall } = JSON.parse((await sent()).body) as Record<string, unknown>;
    expect(toolCall).toBeTruthy();
    expect(await refusal(signed(noCall))).toBe("The signed body is not a tool request.");
    expect(await refusal(signed({ ...noCall, toolCall: { id: "c", name: "x" } }))).toBe("The signed body is not a tool request.");
    expect(await refusal(signed({ ...noCall, toolCall, id: 7 }))).toBe("The signed body is not a tool request.");
    expect(await refusal(signed([1, 2]))).toBe("The signed body is not a tool request.");
    expect(await refusal(signed({ deliveryId: "d", event: "call.started", channel: "voice" }))).toMatch(
      /is a webhook event \(call\.started\), not a tool request/,
    );
    const text = await signPayload("hello", SECRET);
    expect(await refusal(constructToolRequest("hello", text, SECRET))).toMatch(/not JSON/);
  });

  it("is not something constructEvent accepts: a tool request is no webhook event", async () => {
    const { body, signature } = await sent();
    expect(await refusal(constructEvent(body, signature, SECRET))).toMatch(/is a tool request, not a webhook event/);
  });
});

describe("toolResponse", () => {
  it("answers 200 with the result as JSON, as the platform reads it", async () => {
    const res = toolResponse({ status: "shipped" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await res.json()).toEqual({ status: "shipped" });
    expect(await toolResponse("a plain string").text()).toBe('"a plain string"');
    const failed = toolResponse({ error: "down" }, { status: 503, headers: { "x-trace": "t1" } });
    expect([failed.status, failed.headers.get("x-trace"), failed.headers.get("content-type")]).toEqual([503, "t1", "application/json"]);
  });

  it("refuses a result the platform would not read: larger than its cap, or not JSON", () => {
    expect(TOOL_RESPONSE_LIMIT).toBe(TOOL_RESPONSE_CAP);
    // The cap counts bytes: the JSON string's two quotes, then one byte per character.
    expect(toolResponseBody("x".repeat(TOOL_RESPONSE_CAP - 2))).toHaveLength(TOOL_RESPONSE_CAP);
    expect(() => toolResponseBody("x".repeat(TOOL_RESPONSE_CAP - 1))).toThrow(RangeError);
    expect(() => toolResponse("é".repeat(TOOL_RESPONSE_CAP / 2))).toThrow(/at most 16384/);
    expect(() => toolResponse(undefined)).toThrow(TypeError);
  });
});

describe("the document's tool.call", () => {
  it("is the server's tool request schema (ToolRequest), which the SDK's type is generated from", () => {
    const doc = openApiDocument(createApp(), "/") as {
      webhooks?: Record<string, { post: { requestBody: { content: Record<string, { schema: { $ref?: string } }> } } }>;
    };
    expect(doc.webhooks?.["tool.call"]?.post.requestBody.content["application/json"]?.schema.$ref).toBe("#/components/schemas/ToolRequest");
  });
});
