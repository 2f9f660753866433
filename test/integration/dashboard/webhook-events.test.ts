// The endpoint form's event picker offers the events this platform sends (calls, widget chats,
// WhatsApp and Telegram), not the spec's SMS, Messenger or chat.* ones, which stay selectable
// through the API: an endpoint that has one shows it checked, marked, so saving the form keeps it.
import { describe, expect, it } from "vitest";
import { createWorkspace } from "../../support/harness";
import { pagesAs } from "../../support/pages";
import { createEndpoint } from "../../support/webhooks";

const checkbox = (html: string, event: string) =>
  new RegExp(`<input type="checkbox"[^>]*name="events" value="${event.replace(".", "\\.")}"[^>]*>([^<]*)`).exec(html);

describe("the webhook form's events", () => {
  it("offers only what is sent, and keeps an endpoint's other events, marked", async () => {
    const ws = await createWorkspace("Webhook events");
    const page = await pagesAs(ws.admin.email, ws.admin.password);
    const blank = (await page("/dashboard/webhooks/new")).html;
    for (const sent of ["call.completed", "widget.started", "whatsapp.completed", "telegram.started"])
      expect(checkbox(blank, sent)).not.toBeNull();
    for (const unsent of ["sms.started", "messenger.completed", "chat.started"]) expect(checkbox(blank, unsent)).toBeNull();

    const endpoint = await createEndpoint(ws, { useTestReceiver: true, channels: ["chat"], events: ["sms.started", "telegram.started"] });
    const edit = (await page(`/dashboard/webhooks/${endpoint.id}`)).html;
    expect(checkbox(edit, "sms.started")?.[0]).toContain('checked=""');
    expect(checkbox(edit, "sms.started")?.[1]).toBe("sms.started (never sent here)");
    expect(checkbox(edit, "messenger.started")).toBeNull();
  });
});
