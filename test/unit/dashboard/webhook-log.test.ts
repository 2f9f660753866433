// The webhook delivery log (src/dashboard/webhooks/log.tsx): a delivery links to what it was about,
// and shows its body exactly as every attempt sent and signed it.
import { describe, expect, it } from "vitest";
import { DeliveryLog, subjectLink } from "../../../src/dashboard/webhooks/log";
import type { EndpointView } from "../../../src/webhooks/endpoints";
import type { DeliveryView } from "../../../src/webhooks/log";
import { signPayload } from "../../../src/webhooks/signature";
import { preText } from "../../support/pages";
import { stripeAccepts } from "../../support/stripe";

const ID = "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77";

describe("a delivery's subject", () => {
  it("is the call for call events, the chat for widget and messaging events, nothing for Send Test", () => {
    expect(subjectLink({ event: "call.completed", subjectId: ID })).toEqual({ href: `/dashboard/calls/${ID}`, label: "the call" });
    expect(subjectLink({ event: "telegram.started", subjectId: ID })).toEqual({ href: `/dashboard/chats/${ID}`, label: "the chat" });
    expect(subjectLink({ event: "widget.completed", subjectId: ID })?.href).toBe(`/dashboard/chats/${ID}`);
    expect(subjectLink({ event: "call.completed", subjectId: null })).toBeNull();
  });
});

describe("a delivery's body on the log", () => {
  const body = JSON.stringify({
    deliveryId: ID,
    event: "call.completed",
    transcript: { fullText: 'User: </pre><script>alert("x")</script> &amp; héllo 你好 😀\n  two  spaces' },
  });
  const delivery: DeliveryView = {
    id: ID,
    endpointId: ID,
    event: "call.completed",
    status: "succeeded",
    attemptCount: 1,
    lastStatusCode: 200,
    subjectId: null,
    body,
    createdAt: "2026-01-15T09:30:00.000Z",
    updatedAt: "2026-01-15T09:30:00.000Z",
    attempts: [],
  };
  const endpoint = { id: ID, active: true } as EndpointView;

  it("is shown byte for byte, escaped, in a <details> that says what the signature covers", async () => {
    const html = String(
      DeliveryLog({ csrf: "t", endpoint, deliveries: [delivery], next: null, filters: { status: "", event: "" }, problems: [] }),
    );
    expect(html).toContain('<summary class="small">Payload (exactly as signed)</summary>');
    expect(html).not.toContain("<script>");
    const shown = preText(html, `body-${ID}`);
    expect(shown).toBe(body);
    // A receiver's check over the shown bytes passes: they are what was signed.
    const secret = "whs_0123456789abcdefghijABCDEFGHIJ0123456789";
    expect(stripeAccepts(shown ?? "", await signPayload(secret, body), secret)).toBe(true);
    expect(html).toMatch(/HMAC-SHA256, keyed with the signing secret, of <code>&lt;t&gt;\.<\/code> followed by this body/);
  });
});
