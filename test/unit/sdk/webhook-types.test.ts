// The SDK's webhook event types come from the OpenAPI document's `webhooks` section: one event type
// per payload the server describes (the Record below does not compile when the SDK gains or lacks
// one), and narrowing on `event` gives the payload of that event. The document's `tool.call` (a tool
// request, signed like a delivery) is no event: test/unit/sdk/tools.test.ts.
import { describe, expect, expectTypeOf, it } from "vitest";
import type { WebhookCall, WebhookChat, WebhookEvent, WebhookEventType } from "../../../packages/sdk/src/index";
import { createApp } from "../../../src/app";
import { openApiDocument } from "../../../src/routes/public/openapi";

const EVENTS: Record<WebhookEventType, true> = {
  "call.started": true,
  "call.completed": true,
  "call.failed": true,
  "call.analyzed": true,
  "campaign.started": true,
  "campaign.completed": true,
  "widget.started": true,
  "widget.completed": true,
  "whatsapp.started": true,
  "whatsapp.completed": true,
  "telegram.started": true,
  "telegram.completed": true,
  "sms.started": true,
  "sms.completed": true,
  "messenger.started": true,
  "messenger.completed": true,
  "test_run.completed": true,
};

describe("SDK webhook event types", () => {
  it("name every event the document describes, and nothing else", () => {
    const doc = openApiDocument(createApp(), "/") as { webhooks?: Record<string, unknown> };
    const described = Object.keys(doc.webhooks ?? {}).filter((k) => k !== "custom-payload" && k !== "tool.call");
    expect(Object.keys(EVENTS).sort()).toEqual(described.sort());
    expect(Object.keys(doc.webhooks ?? {})).toContain("tool.call");
    expectTypeOf<Extract<WebhookEventType, "tool.call">>().toBeNever();
  });

  it("narrow on `event` to that event's payload", () => {
    const narrow = (e: WebhookEvent) => {
      if (e.event === "call.completed") {
        expectTypeOf(e.channel).toEqualTypeOf<"voice">();
        expectTypeOf(e.call).toEqualTypeOf<WebhookCall | null>();
      } else if (e.event === "telegram.started") {
        expectTypeOf(e.channel).toEqualTypeOf<"telegram">();
        expectTypeOf(e.chat).toEqualTypeOf<WebhookChat | null>();
      }
      return e.event;
    };
    expect(narrow({ event: "sms.completed" } as WebhookEvent)).toBe("sms.completed");
  });
});
