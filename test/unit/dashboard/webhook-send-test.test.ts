// Send Test on an endpoint's page (src/dashboard/webhooks/detail.tsx): which event its picker offers first.
import { describe, expect, it } from "vitest";
import { testEventFor } from "../../../src/dashboard/webhooks/detail";

describe("Send Test's event picker", () => {
  it("offers the event just sent, else call.completed when the endpoint takes it or none it could be sent, else its first", () => {
    expect(testEventFor(["widget.started"], "telegram.completed")).toBe("telegram.completed");
    expect(testEventFor(["call.started", "call.completed"])).toBe("call.completed");
    expect(testEventFor([])).toBe("call.completed");
    expect(testEventFor(["sms.started", "chat.completed"])).toBe("call.completed");
    expect(testEventFor(["sms.started", "widget.completed", "telegram.started"])).toBe("widget.completed");
    // An event the platform does not send is never offered, even when asked for.
    expect(testEventFor(["widget.started"], "sms.started")).toBe("widget.started");
  });
});
