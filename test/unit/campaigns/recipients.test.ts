// A campaign's recipients checked before anything is written (src/campaigns/recipients.ts): numbers
// normalised or refused, duplicates, time zones, the agent's {{variables}}, the CSV header's
// columns, and every problem of every row in one error (the first 100 listed).
import { describe, expect, it } from "vitest";
import { checkRecipients, normalisePhoneNumber, rowsFromCsv } from "../../../src/campaigns/recipients";
import { ApiError } from "../../../src/lib/errors";

const NO_VOICEMAIL = { detection: "off" as const, message: null };
const AGENT = {
  systemPrompt: "Remind {{first_name}}.",
  firstMessage: "Hi {{ first_name }}, about {{appointment}}.",
  voicemail: NO_VOICEMAIL,
};
const csv = (text: string) => new TextEncoder().encode(text);
const vars = { first_name: "Ada", appointment: "Monday" };

/** The validation_failed a check throws. */
const refusal = (check: () => unknown): ApiError => {
  try {
    check();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error("nothing was refused");
};
const fromCsv = (text: string, agent: typeof AGENT | null = AGENT) => {
  const { rows, issues } = rowsFromCsv(csv(text));
  return checkRecipients(rows, agent, issues);
};

describe("normalisePhoneNumber", () => {
  it("drops spaces, dashes, dots and parentheses around an E.164 number", () => {
    expect(normalisePhoneNumber("+1 (415) 555-0100")).toEqual({ number: "+14155550100" });
    expect(normalisePhoneNumber(" +44 20.7946.0958 ")).toEqual({ number: "+442079460958" });
  });

  it("refuses a number without + and country code, rather than guess one", () => {
    expect(normalisePhoneNumber("(415) 555-0100")).toEqual({ problem: expect.stringMatching(/has no country code/) });
    expect(normalisePhoneNumber("+1 415 CALL-NOW")).toEqual({ problem: expect.stringMatching(/is not an E\.164 phone number/) });
    expect(normalisePhoneNumber("+0123456789")).toEqual({ problem: expect.stringMatching(/is not an E\.164/) });
    expect(normalisePhoneNumber("  ")).toEqual({ problem: "is empty" });
  });
});

describe("checkRecipients (JSON rows)", () => {
  it("returns the rows to insert: 1-based rows, E.164 numbers, time zones, variables", () => {
    expect(
      checkRecipients(
        [
          { phoneNumber: "+1 415 555 0100", variables: vars },
          { phoneNumber: "+14155550101", timezone: "Europe/Berlin", variables: { ...vars, extra: "kept" } },
        ],
        AGENT,
      ),
    ).toEqual([
      { row: 1, phoneNumber: "+14155550100", timezone: null, variables: vars },
      { row: 2, phoneNumber: "+14155550101", timezone: "Europe/Berlin", variables: { ...vars, extra: "kept" } },
    ]);
  });

  it("lists every problem of every row at once: bad numbers, duplicates after normalising, time zones, missing variables", () => {
    const err = refusal(() =>
      checkRecipients(
        [
          { phoneNumber: "+14155550100", variables: vars },
          { phoneNumber: "4155550100", variables: vars },
          { phoneNumber: "+1 (415) 555-0100", variables: vars },
          { phoneNumber: "+14155550102", timezone: "Mars/Olympus", variables: { first_name: "Al" } },
          { phoneNumber: "+14155550103", variables: { ...vars, "bad name": "x" } },
        ],
        AGENT,
      ),
    );
    expect(err.code).toBe("validation_failed");
    expect(err.issues).toEqual([
      { path: "recipients.1.phoneNumber", message: expect.stringMatching(/has no country code/) },
      { path: "recipients.2.phoneNumber", message: "+14155550100 is listed twice: first at recipients.0" },
      { path: "recipients.3.timezone", message: expect.stringMatching(/"Mars\/Olympus" is not an IANA time zone/) },
      { path: "recipients.3.variables.appointment", message: "missing: the agent's templates use {{appointment}}" },
      { path: "recipients.4.variables.bad name", message: expect.stringMatching(/variable names are identifiers/) },
    ]);
    expect(err.message).toBe(
      'Invalid campaign: recipients.1.phoneNumber: "4155550100" has no country code: write it in E.164, + then country code and number (e.g. +14155550123). 5 problems in all, in 4 recipient rows; nothing was created.',
    );
  });

  it("lists the first 100 problems and counts them all", () => {
    const rows = Array.from({ length: 150 }, (_, i) => ({ phoneNumber: `+1415555${String(i).padStart(4, "0")}`, variables: {} }));
    const err = refusal(() => checkRecipients(rows, AGENT));
    expect(err.issues).toHaveLength(100);
    expect(err.message).toMatch(/300 problems in all, in 150 recipient rows, the first 100 listed in issues; nothing was created\.$/);
  });

  it("needs no variable when the agent's templates use none, and none at all without an agent", () => {
    const plain = { systemPrompt: "You remind people.", firstMessage: null, voicemail: NO_VOICEMAIL };
    expect(checkRecipients([{ phoneNumber: "+14155550100" }], plain)).toHaveLength(1);
    expect(checkRecipients([{ phoneNumber: "+14155550100" }], null)).toHaveLength(1);
  });
});

describe("rowsFromCsv", () => {
  it("reads the header's phone_number (or an alias), timezone, and every other column as a variable", () => {
    expect(fromCsv("Phone Number,TZ,first_name,appointment\n+1 (415) 555-0100,America/Chicago,Zoë 👋,Monday\r\n")).toEqual([
      { row: 1, phoneNumber: "+14155550100", timezone: "America/Chicago", variables: { first_name: "Zoë 👋", appointment: "Monday" } },
    ]);
    expect(fromCsv("to,first_name,appointment\n+14155550100,Ada,Monday\n")[0]?.phoneNumber).toBe("+14155550100");
  });

  it("keeps a column the agent does not use as a variable, and takes an empty cell as no value", () => {
    const [row] = fromCsv("phone_number,first_name,appointment,notes\n+14155550100,Ada,Monday,\n");
    expect(row?.variables).toEqual({ first_name: "Ada", appointment: "Monday" });
    const err = refusal(() => fromCsv("phone_number,first_name,appointment\n+14155550100,,Monday\n"));
    expect(err.issues).toEqual([
      { path: "recipients.0.variables.first_name", message: "missing: the agent's templates use {{first_name}} (CSV line 2)" },
    ]);
  });

  it("names the CSV line of each row's problem, after a quoted field that spans lines", () => {
    const err = refusal(() =>
      fromCsv('phone_number,first_name,appointment\n+14155550100,"Ada\nLovelace",Monday\n+14155550100,Al,Tuesday\n'),
    );
    expect(err.issues).toEqual([
      {
        path: "recipients.1.phoneNumber",
        message: "+14155550100 is listed twice: first at recipients.0 (CSV line 2), again on CSV line 4",
      },
    ]);
  });

  it("refuses header columns without a name, that are not variable names, or named twice; and rows of the wrong width", () => {
    const err = refusal(() => fromCsv("phone_number,first_name,,First Name,first_name,appointment\n+14155550100,Ada,x,y,z\n", null));
    expect(err.issues).toEqual([
      { path: "csv.header.3", message: "column 3 of the header row has no name; name it or remove the column" },
      { path: "csv.header.4", message: expect.stringMatching(/^"First Name" is not a variable name/) },
      { path: "csv.header.5", message: '"first_name" is named twice in the header row' },
      { path: "recipients.0", message: "has 5 fields, the header row 6 (CSV line 2); quote a field that holds a comma" },
    ]);
  });

  it("refuses a file without a phone column, an empty file, a header alone, and wrong bytes, whole", () => {
    expect(refusal(() => fromCsv("name,first_name\nAda,Ada\n")).message).toMatch(/header row \(line 1\) has no phone_number column/);
    expect(refusal(() => fromCsv("")).message).toMatch(/the file is empty/);
    expect(refusal(() => fromCsv("\uFEFF")).message).toMatch(/the file is empty/);
    expect(refusal(() => fromCsv("phone_number\n")).message).toMatch(/a header row but no recipient rows/);
    const latin1 = new Uint8Array([...new TextEncoder().encode("phone_number,first_name\n+14155550100,Zo"), 0xeb, 0x0a]);
    expect(refusal(() => rowsFromCsv(latin1)).message).toMatch(/^Invalid csv: The CSV file is not UTF-8: line 2/);
  });

  it("takes 10,000 recipients and refuses 10,001 before checking any row", () => {
    const lines = (n: number) => ["phone_number", ...Array.from({ length: n }, (_, i) => `+1415${String(i).padStart(7, "0")}`)].join("\n");
    expect(fromCsv(lines(10_000), null)).toHaveLength(10_000);
    const err = refusal(() => fromCsv(lines(10_001), null));
    expect(err.issues).toEqual([{ path: "recipients", message: expect.stringMatching(/^at most 10,000 recipients per campaign/) }]);
  });
});
