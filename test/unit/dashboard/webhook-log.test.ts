// A delivery in the webhook log links to what it was about (src/dashboard/webhooks/log.tsx).
import { describe, expect, it } from "vitest";
import { subjectLink } from "../../../src/dashboard/webhooks/log";

const ID = "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77";

describe("a delivery's subject", () => {
  it("is the call for call events, the chat for widget and messaging events, nothing for Send Test", () => {
    expect(subjectLink({ event: "call.completed", subjectId: ID })).toEqual({ href: `/dashboard/calls/${ID}`, label: "the call" });
    expect(subjectLink({ event: "telegram.started", subjectId: ID })).toEqual({ href: `/dashboard/chats/${ID}`, label: "the chat" });
    expect(subjectLink({ event: "widget.completed", subjectId: ID })?.href).toBe(`/dashboard/chats/${ID}`);
    expect(subjectLink({ event: "call.completed", subjectId: null })).toBeNull();
  });
});
