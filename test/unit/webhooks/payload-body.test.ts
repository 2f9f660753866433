// A delivery's body is serialized once (src/webhooks/payload.ts bodyTemplate / bodyWithId): the
// emit's statement writes `head || id || tail` in SQL and the worker sends the same string, which
// must be exactly JSON.stringify of the payload with that delivery id, whatever its characters.
import { describe, expect, it } from "vitest";
import { bodyTemplate, bodyWithId, buildPayload, type Payload, shapePayload } from "../../../src/webhooks/payload";

const ID = "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77";

const full = buildPayload({
  deliveryId: "",
  event: "call.completed",
  channel: "voice",
  timestamp: new Date("2026-01-15T09:30:00.000Z"),
  data: {
    call: { id: "c1", agentName: 'Ada "the" agent \\ ✓' },
    transcript: {
      fullText: "Agent: héllo 你好 😀\nUser: </script><b>&amp;</b> \u2028 \u0001",
      turns: [{ role: "agent", text: "héllo 你好 😀", startMs: 0, endMs: 1 }],
    },
    metadata: { '"deliveryId":"': "a key that looks like the envelope", nested: { deliveryId: "not this one" } },
  },
});

describe("a delivery's body, serialized once", () => {
  it("is the payload's JSON with the delivery's id, byte for byte", () => {
    const template = bodyTemplate(full);
    const body = bodyWithId(template, ID);
    expect(body).toBe(JSON.stringify({ ...full, deliveryId: ID }));
    expect(body.startsWith(`{"deliveryId":"${ID}","event":"call.completed","channel":"voice",`)).toBe(true);
    expect(JSON.parse(body).metadata.nested.deliveryId).toBe("not this one");
    // The statement's concatenation of the two parts around the id makes the same text.
    expect([template.head, ID, template.tail].join("")).toBe(body);
  });

  it("is the same for every delivery but the id", () => {
    const template = bodyTemplate(full);
    const other = "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b78";
    expect(bodyWithId(template, other)).toBe(bodyWithId(template, ID).replace(ID, other));
  });

  it("refuses a payload whose first key is not its deliveryId (the id could not be placed)", () => {
    const { deliveryId: _, ...rest } = full;
    expect(() => bodyTemplate({ ...rest, deliveryId: "" } as Payload)).toThrow(/first key/);
  });

  it("keeps the envelope first in the custom mode's shape too", () => {
    const shaped = shapePayload({ ...full, deliveryId: ID }, ["metadata", "call.id"]);
    expect(JSON.stringify(shaped)).toBe(bodyWithId(bodyTemplate({ ...shaped, deliveryId: "" }), ID));
  });
});
