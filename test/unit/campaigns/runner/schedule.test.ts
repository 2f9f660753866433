// A campaign's window maths (src/campaigns/runner/schedule.ts), with the instant given: weekdays
// and hours in a zone, windows past midnight, daylight-saving changes, and the next opening.
import { describe, expect, it } from "vitest";
import { attemptOf, outcomeOf } from "../../../../src/campaigns/runner/outcome";
import { isOpen, localTime, nextOpening, zonedInstant } from "../../../../src/campaigns/runner/schedule";
import { recipientZone, zoneOfNumber } from "../../../../src/campaigns/runner/timezones";

const weekdays = { days: [1, 2, 3, 4, 5], start: "09:00", end: "17:00" };
const at = (iso: string) => new Date(iso);

describe("the local time of an instant", () => {
  it("reads the weekday and time in the zone, not in UTC", () => {
    // Monday 2026-03-02 23:30 UTC is Tuesday 08:30 in Tokyo and Monday 18:30 in New York.
    expect(localTime(at("2026-03-02T23:30:00Z"), "Asia/Tokyo")).toMatchObject({ weekday: 2, minutes: 8 * 60 + 30, day: 3 });
    expect(localTime(at("2026-03-02T23:30:00Z"), "America/New_York")).toMatchObject({ weekday: 1, minutes: 18 * 60 + 30, day: 2 });
  });
});

describe("whether a window is open", () => {
  it("is open from the start minute to before the end minute, on listed days only", () => {
    // Paris is UTC+1 in winter.
    expect(isOpen(weekdays, "Europe/Paris", at("2026-03-02T07:59:00Z"))).toBe(false);
    expect(isOpen(weekdays, "Europe/Paris", at("2026-03-02T08:00:00Z"))).toBe(true);
    expect(isOpen(weekdays, "Europe/Paris", at("2026-03-02T15:59:00Z"))).toBe(true);
    expect(isOpen(weekdays, "Europe/Paris", at("2026-03-02T16:00:00Z"))).toBe(false);
    // Saturday 7 March, noon.
    expect(isOpen(weekdays, "Europe/Paris", at("2026-03-07T11:00:00Z"))).toBe(false);
  });

  it("is the same instant open in one zone and closed in another", () => {
    const noonUtc = at("2026-03-04T12:00:00Z"); // Wednesday
    expect(isOpen(weekdays, "Europe/London", noonUtc)).toBe(true);
    expect(isOpen(weekdays, "Asia/Tokyo", noonUtc)).toBe(false); // 21:00
    expect(isOpen(weekdays, "America/Los_Angeles", noonUtc)).toBe(false); // 04:00
  });

  it("runs a window whose end is before its start past midnight, from a listed day", () => {
    const evenings = { days: [5], start: "20:00", end: "02:00" }; // Friday evenings
    expect(isOpen(evenings, "UTC", at("2026-03-06T21:00:00Z"))).toBe(true); // Friday 21:00
    expect(isOpen(evenings, "UTC", at("2026-03-07T01:30:00Z"))).toBe(true); // Saturday 01:30, Friday's night
    expect(isOpen(evenings, "UTC", at("2026-03-07T02:00:00Z"))).toBe(false);
    expect(isOpen(evenings, "UTC", at("2026-03-06T01:30:00Z"))).toBe(false); // Friday 01:30 is Thursday's night
  });

  it("reads a start equal to the end as the whole day", () => {
    const sundays = { days: [7], start: "00:00", end: "00:00" };
    expect(isOpen(sundays, "UTC", at("2026-03-08T00:00:00Z"))).toBe(true);
    expect(isOpen(sundays, "UTC", at("2026-03-08T23:59:00Z"))).toBe(true);
    expect(isOpen(sundays, "UTC", at("2026-03-09T00:00:00Z"))).toBe(false);
  });

  it("follows the zone's daylight-saving change: the same local hours, another UTC hour", () => {
    // New York moves to UTC-4 on Sunday 8 March 2026: 09:00 is 14:00 UTC before, 13:00 UTC after.
    expect(isOpen(weekdays, "America/New_York", at("2026-03-06T13:30:00Z"))).toBe(false); // Friday 08:30 EST
    expect(isOpen(weekdays, "America/New_York", at("2026-03-09T13:30:00Z"))).toBe(true); // Monday 09:30 EDT
  });
});

describe("when a window next opens", () => {
  it("is now when open, else the next listed day's start in the zone", () => {
    const now = at("2026-03-04T12:00:00Z"); // Wednesday
    expect(nextOpening(weekdays, "Europe/London", now)).toEqual(now);
    // Tokyo: Wednesday 21:00 → Thursday 09:00 JST = 00:00 UTC.
    expect(nextOpening(weekdays, "Asia/Tokyo", now)).toEqual(at("2026-03-05T00:00:00Z"));
    // Los Angeles: Wednesday 04:00 PST → the same day at 09:00 = 17:00 UTC.
    expect(nextOpening(weekdays, "America/Los_Angeles", now)).toEqual(at("2026-03-04T17:00:00Z"));
  });

  it("skips days not listed: Friday evening to Monday morning", () => {
    expect(nextOpening(weekdays, "UTC", at("2026-03-06T18:00:00Z"))).toEqual(at("2026-03-09T09:00:00Z"));
  });

  it("opens at the new offset after a daylight-saving change", () => {
    // Friday 6 March 18:00 EST → Monday 9 March 09:00 EDT = 13:00 UTC (not 14:00).
    expect(nextOpening(weekdays, "America/New_York", at("2026-03-06T23:00:00Z"))).toEqual(at("2026-03-09T13:00:00Z"));
    // Europe changes on 29 March: Friday 27th 17:00 CET → Monday 30th 09:00 CEST = 07:00 UTC.
    expect(nextOpening(weekdays, "Europe/Paris", at("2026-03-27T16:00:00Z"))).toEqual(at("2026-03-30T07:00:00Z"));
  });

  it("is null when no day is listed", () => {
    expect(nextOpening({ days: [], start: "09:00", end: "17:00" }, "UTC", at("2026-03-04T12:00:00Z"))).toBeNull();
  });
});

describe("a wall-clock time on a change night", () => {
  it("moves a skipped time on by the gap, and takes the earlier of a time seen twice", () => {
    // Paris skips 02:00–03:00 on 29 March 2026: 02:30 is read as 03:30 CEST = 01:30 UTC.
    expect(zonedInstant(2026, 3, 29, 150, "Europe/Paris")).toEqual(at("2026-03-29T01:30:00Z"));
    // Paris passes 02:00–03:00 twice on 25 October 2026: 02:30 is first at 00:30 UTC (CEST).
    expect(zonedInstant(2026, 10, 25, 150, "Europe/Paris")).toEqual(at("2026-10-25T00:30:00Z"));
    expect(zonedInstant(2026, 7, 1, 9 * 60, "Europe/Paris")).toEqual(at("2026-07-01T07:00:00Z"));
  });
});

describe("a recipient's zone", () => {
  it("is its row's, else its single-zone country's, else the schedule's", () => {
    expect(recipientZone({ timezone: "Asia/Tokyo", phoneNumber: "+33612345678" }, "UTC")).toBe("Asia/Tokyo");
    expect(recipientZone({ timezone: null, phoneNumber: "+33612345678" }, "UTC")).toBe("Europe/Paris");
    expect(recipientZone({ timezone: null, phoneNumber: "+35312345678" }, "UTC")).toBe("Europe/Dublin");
    // +1 spans many zones: the schedule's.
    expect(recipientZone({ timezone: null, phoneNumber: "+12025550100" }, "America/Chicago")).toBe("America/Chicago");
    expect(zoneOfNumber("+71234567890")).toBeNull();
  });
});

describe("a campaign call's outcome and attempt", () => {
  it("maps ended reasons to recipient outcomes", () => {
    expect(outcomeOf("customer-ended-call")).toBe("completed");
    expect(outcomeOf("agent-ended-call")).toBe("completed");
    expect(outcomeOf("customer-busy")).toBe("busy");
    expect(outcomeOf("customer-did-not-answer")).toBe("no-answer");
    expect(outcomeOf("voicemail")).toBe("voicemail");
    expect(outcomeOf("dial-failed")).toBe("failed");
    expect(outcomeOf("watchdog-timeout")).toBe("failed");
  });

  it("reads the attempt from the call's key, for its own recipient only", () => {
    const id = "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77";
    expect(attemptOf({ idempotencyKey: `campaign:${id}:3`, campaignRecipientId: id })).toBe(3);
    expect(attemptOf({ idempotencyKey: `campaign:${id}:3`, campaignRecipientId: "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b78" })).toBeNull();
    expect(attemptOf({ idempotencyKey: null, campaignRecipientId: id })).toBeNull();
  });
});
