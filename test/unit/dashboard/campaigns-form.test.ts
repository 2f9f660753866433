// The Campaigns screens' wording and form mapping (src/dashboard/campaigns/form.ts, format.ts): the
// service's issues split between the form's fields and the recipients' table (each with the line of
// the file the service's parser read), the form → the API's fields, the progress and settings text.
import { describe, expect, it } from "vitest";
import { noCounts } from "../../../src/campaigns/views";
import { campaignFieldsOf, campaignValuesOf, fieldOf, splitIssues } from "../../../src/dashboard/campaigns/form";
import { progressOf, retryText, scheduleText } from "../../../src/dashboard/campaigns/format";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("splitIssues", () => {
  it("puts each recipient's problem on the line its record starts on (blank lines and quoted line breaks counted), the campaign's on its fields", () => {
    const csv = bytes('phone_number,note\n+14155550101,"two\nlines"\n\n415,x\n+14155550103,y\n');
    const { errors, rows } = splitIssues(
      [
        { path: "agentId", message: "no agent with this id in this workspace" },
        { path: "fromNumbers.1", message: "+15550000000 is not one of this workspace's phone numbers" },
        { path: "schedule.timezone", message: "bad zone" },
        { path: "maxCallsInFlight", message: "too many" },
        { path: "csv.header.3", message: '"First Name" is not a variable name' },
        { path: "recipients.1.phoneNumber", message: '"415" has no country code (CSV line 5)' },
        { path: "recipients.2.variables.first_name", message: "missing: the agent's templates use {{first_name}} (CSV line 6)" },
        { path: "recipients.0", message: "has 3 fields, the header row 2 (CSV line 2); quote a field that holds a comma" },
      ],
      csv,
    );
    expect(errors).toEqual({
      agentId: "no agent with this id in this workspace",
      fromNumbers: "+15550000000 is not one of this workspace's phone numbers",
      timezone: "bad zone",
      maxCallsInFlight: "too many",
    });
    expect(rows).toEqual([
      { line: 1, field: "header, column 3", message: '"First Name" is not a variable name' },
      { line: 5, field: "phone_number", message: '"415" has no country code' },
      { line: 6, field: "first_name", message: "missing: the agent's templates use {{first_name}}" },
      { line: 2, field: "row", message: "has 3 fields, the header row 2 (CSV line 2); quote a field that holds a comma" },
    ]);
  });

  it("says a refusal of the file as a whole on the file's field, with no line", () => {
    const latin1 = new Uint8Array([0x70, 0x0a, 0xe9]);
    expect(splitIssues([{ path: "csv", message: "The CSV file is not UTF-8: line 2" }], latin1)).toEqual({
      errors: { csv: "The CSV file is not UTF-8: line 2" },
      rows: [],
    });
    expect(splitIssues([{ path: "recipients", message: "at most 10,000 recipients" }], null).errors).toEqual({
      csv: "at most 10,000 recipients",
    });
  });

  it("names the form's field of a schema path by its longest known prefix", () => {
    expect(fieldOf("schedule.days.3")).toBe("days");
    expect(fieldOf("retry.delaySeconds")).toBe("delayMinutes");
    expect(fieldOf("retry.on.0")).toBe("on");
    expect(fieldOf("fromNumbers.0")).toBe("fromNumbers");
    expect(fieldOf("metadata")).toBe("csv"); // not on the form: said with the recipients' field
  });
});

describe("campaignFieldsOf", () => {
  it("turns the form into the API's fields: a schedule only when asked for, the delay in seconds, empty numbers as defaults", () => {
    const form = {
      name: ["Reminders"],
      agentId: ["a"],
      fromNumbers: ["+15005550006", "+14155550100"],
      scheduled: ["on"],
      days: ["1", "5"],
      start: ["09:00"],
      end: ["17:00"],
      timezone: [" Europe/Paris "],
      maxAttempts: ["3"],
      delayMinutes: ["1.5"],
      on: ["busy", "nonsense"],
      maxCallsInFlight: [""],
    };
    expect(campaignFieldsOf(campaignValuesOf(form), form)).toEqual({
      name: "Reminders",
      agentId: "a",
      agentVersion: null,
      fromNumbers: ["+15005550006", "+14155550100"],
      schedule: { days: [1, 5], start: "09:00", end: "17:00", timezone: "Europe/Paris" },
      retry: { maxAttempts: 3, delaySeconds: 90, on: ["busy"] },
      maxCallsInFlight: undefined,
    });
    const plain = { ...form, scheduled: [], maxAttempts: [""], delayMinutes: [""], maxCallsInFlight: ["4"], agentVersion: [" 3 "] };
    expect(campaignFieldsOf(campaignValuesOf(plain), plain)).toMatchObject({
      schedule: null,
      retry: { maxAttempts: 1, delaySeconds: 3600 },
      maxCallsInFlight: 4,
      agentVersion: 3,
    });
  });
});

describe("the campaign's wording", () => {
  it("counts final states as done", () => {
    const counts = { ...noCounts(), pending: 3, calling: 1, completed: 2, voicemail: 1, "no-answer": 1, canceled: 1 };
    expect(progressOf({ counts, recipientCount: 9 })).toEqual({ done: 5, total: 9, percent: 55, text: "5 of 9 done" });
    expect(progressOf({ counts: noCounts(), recipientCount: 0 }).percent).toBe(0);
  });

  it("says the schedule and the retries", () => {
    expect(scheduleText(null)).toBe("Any time");
    expect(scheduleText({ days: [3, 1, 2], start: "09:00", end: "18:00", timezone: "UTC" })).toBe(
      "Mon–Wed 09:00–18:00 in each recipient's time zone (UTC when the row names none)",
    );
    expect(scheduleText({ days: [1, 3], start: "09:00", end: "18:00", timezone: "UTC" })).toMatch(/^Mon, Wed 09:00/);
    expect(retryText({ maxAttempts: 1, delaySeconds: 3600, on: ["busy"] })).toBe("One attempt (no retry)");
    expect(retryText({ maxAttempts: 3, delaySeconds: 7200, on: ["no-answer", "busy"] })).toBe(
      "Up to 3 attempts, 2 h apart, on no-answer, busy",
    );
  });
});
