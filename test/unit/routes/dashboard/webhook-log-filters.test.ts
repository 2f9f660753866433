// The delivery log's filters on an endpoint's page (src/routes/dashboard/webhooks/log-filters.ts):
// the API's own rules; a value refused filters nothing and is said, never a 5xx. And the links
// that page on under them (src/dashboard/webhooks/log.tsx logQuery).
import { describe, expect, it } from "vitest";
import { logQuery } from "../../../../src/dashboard/webhooks/log";
import "../../../../src/lib/zod-messages";
import { logFiltersOf } from "../../../../src/routes/dashboard/webhooks/log-filters";

describe("the delivery log's filters", () => {
  it("takes a status and an event of the catalogue; absent or empty is any", () => {
    expect(logFiltersOf({})).toEqual({ filters: {}, values: { status: "", event: "" }, problems: [] });
    expect(logFiltersOf({ status: "", event: "" }).filters).toEqual({});
    expect(logFiltersOf({ status: "failed", event: "widget.completed" })).toEqual({
      filters: { status: "failed", event: "widget.completed" },
      values: { status: "failed", event: "widget.completed" },
      problems: [],
    });
    // Selectable but never sent here: a valid filter, which finds nothing.
    expect(logFiltersOf({ event: "sms.started" }).filters).toEqual({ event: "sms.started" });
  });

  it("drops a value the API refuses and says so, cut short, the rest still applied", () => {
    const r = logFiltersOf({ status: "FAILED", event: "call.completed" });
    expect(r.filters).toEqual({ event: "call.completed" });
    expect(r.values).toEqual({ status: "", event: "call.completed" });
    expect(r.problems).toEqual(["The status filter “FAILED” must be one of: pending, succeeded, failed: showing every status."]);

    const long = logFiltersOf({ event: `<b>${"é".repeat(5000)}` });
    expect(long.filters).toEqual({});
    expect(long.problems).toHaveLength(1);
    expect(long.problems[0]).toMatch(/^The event filter “<b>é{37}…” must be one of: call\.started, /);
  });
});

describe("the log's links", () => {
  it("keep the filters, with the cursor of an older page", () => {
    expect(logQuery({ status: "", event: "" })).toBe("");
    expect(logQuery({ status: "", event: "" }, "abc")).toBe("?cursor=abc");
    expect(logQuery({ status: "failed", event: "call.completed" }, "a+b/c=")).toBe(
      "?status=failed&event=call.completed&cursor=a%2Bb%2Fc%3D",
    );
  });
});
