// A campaign's recipients checked before anything is written (docs/campaigns.md, "Recipients and
// CSV"): from JSON rows or a CSV file, into rows ready to insert, or every problem at once. One
// pass over all rows, so a 10,000-row upload with a bad number on line 9,000 and a missing
// variable on line 12 says both; the error body lists the first MAX_LISTED_ISSUES.
import { missingVariables } from "../calls/prompt";
import type { Agent } from "../db/schema";
import { ApiError } from "../lib/errors";
import { codePoints, textProblem } from "../lib/fields";
import { CsvError, CsvLimitError, decodeCsv, parseCsv } from "./csv";
import { MAX_LISTED_ISSUES, MAX_RECIPIENTS, type RecipientInput } from "./schema";

export interface Issue {
  path: string;
  message: string;
}

/** A recipient ready to insert: its 1-based row, its number in E.164, its time zone (or none), its variables. */
export interface RecipientRow {
  row: number;
  phoneNumber: string;
  timezone: string | null;
  variables: Record<string, string>;
}

const E164 = /^\+[1-9]\d{6,14}$/;
/** What a person writes around a number's digits: dropped before the number is checked. */
const SEPARATORS = /[\s().\-\u00a0]/g;
export const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
export const VARIABLE_LIMITS = { count: 50, chars: 2_000 } as const;

/**
 * A number as E.164, or why it is not one. "+1 (415) 555-0100" and "+44 20 7946 0958" are taken
 * (separators dropped); a number without `+` and its country code is refused rather than guessed.
 */
export function normalisePhoneNumber(raw: string): { number: string } | { problem: string } {
  const trimmed = raw.trim();
  if (trimmed === "") return { problem: "is empty" };
  const compact = trimmed.replace(SEPARATORS, "");
  if (!compact.startsWith("+"))
    return { problem: `"${trimmed}" has no country code: write it in E.164, + then country code and number (e.g. +14155550123)` };
  if (!E164.test(compact)) return { problem: `"${trimmed}" is not an E.164 phone number: + then 7 to 15 digits (e.g. +14155550123)` };
  return { number: compact };
}

const zones = new Map<string, boolean>();
/** Whether the runtime's Intl knows the IANA time zone (checked once per name). */
export function isTimeZone(zone: string): boolean {
  let known = zones.get(zone);
  if (known === undefined) {
    try {
      new Intl.DateTimeFormat("en-US", { timeZone: zone });
      known = true;
    } catch {
      known = false;
    }
    if (zones.size < 1_000) zones.set(zone, known);
  }
  return known;
}

/** A row as given: JSON's, or a CSV record's (with its line, for messages). */
interface GivenRow extends RecipientInput {
  line?: number;
}

const where = (row: GivenRow) => (row.line === undefined ? "" : ` (CSV line ${row.line})`);

/**
 * Checks every row: the number (E.164 after dropping separators), duplicates, the time zone, the
 * variables (names, sizes, and every name the agent's templates use). Throws validation_failed
 * with all issues (the first MAX_LISTED_ISSUES listed), else returns the rows to insert.
 */
export function checkRecipients(
  given: GivenRow[],
  agent: Pick<Agent, "systemPrompt" | "firstMessage" | "voicemail"> | null,
  earlier: Issue[] = [],
): RecipientRow[] {
  const issues: Issue[] = [...earlier];
  const rows: RecipientRow[] = [];
  const seen = new Map<string, number>();
  let badRows = 0;
  given.forEach((row, i) => {
    const before = issues.length;
    const at = (field: string) => `recipients.${i}.${field}`;
    const phone = normalisePhoneNumber(row.phoneNumber);
    if ("problem" in phone) issues.push({ path: at("phoneNumber"), message: `${phone.problem}${where(row)}` });
    else {
      const first = seen.get(phone.number);
      if (first !== undefined) {
        const firstRow = given[first];
        issues.push({
          path: at("phoneNumber"),
          message: `${phone.number} is listed twice: first at recipients.${first}${firstRow?.line === undefined ? "" : ` (CSV line ${firstRow.line}), again on CSV line ${row.line}`}`,
        });
      } else seen.set(phone.number, i);
    }
    const timezone = row.timezone?.trim() || null;
    if (timezone && !isTimeZone(timezone))
      issues.push({ path: at("timezone"), message: `"${timezone}" is not an IANA time zone (e.g. America/New_York)${where(row)}` });
    const variables = row.variables ?? {};
    const names = Object.keys(variables);
    if (names.length > VARIABLE_LIMITS.count)
      issues.push({ path: at("variables"), message: `at most ${VARIABLE_LIMITS.count} variables (got ${names.length})${where(row)}` });
    for (const name of names) {
      const value = variables[name] as string;
      if (!VARIABLE_NAME.test(name))
        issues.push({
          path: at(`variables.${name}`),
          message: `variable names are identifiers (letters, digits, _; at most 64)${where(row)}`,
        });
      const problem = textProblem(value);
      if (problem) issues.push({ path: at(`variables.${name}`), message: `${problem}${where(row)}` });
      else if (codePoints(value) > VARIABLE_LIMITS.chars)
        issues.push({ path: at(`variables.${name}`), message: `must be at most ${VARIABLE_LIMITS.chars} characters${where(row)}` });
    }
    if (agent)
      for (const name of missingVariables(agent, variables))
        issues.push({ path: at(`variables.${name}`), message: `missing: the agent's templates use {{${name}}}${where(row)}` });
    if (issues.length > before) badRows++;
    else if ("number" in phone) rows.push({ row: i + 1, phoneNumber: phone.number, timezone, variables });
  });
  if (issues.length > 0) throw invalidCampaign(issues, badRows);
  return rows;
}

/**
 * validation_failed with the issues, the first MAX_LISTED_ISSUES listed; the message names the first
 * and counts them all (and the recipient rows they are in).
 */
export function invalidCampaign(issues: Issue[], badRows: number, outcome = "nothing was created"): ApiError {
  const first = issues[0] as Issue;
  const listed = issues.slice(0, MAX_LISTED_ISSUES);
  const n = (count: number, word: string) => `${count.toLocaleString("en-US")} ${word}${count === 1 ? "" : "s"}`;
  const parts = [`${n(issues.length, "problem")} in all`];
  if (badRows > 0) parts.push(`in ${n(badRows, "recipient row")}`);
  if (issues.length > listed.length) parts.push(`the first ${listed.length} listed in issues`);
  return new ApiError("validation_failed", `Invalid campaign: ${first.path}: ${first.message}. ${parts.join(", ")}; ${outcome}.`, {
    issues: listed,
  });
}

/** Header names that mean the number and the time zone (compared lower case, spaces and dashes as _). */
const PHONE_COLUMNS = new Set(["phone_number", "phonenumber", "phone", "number", "to", "mobile"]);
const TIMEZONE_COLUMNS = new Set(["timezone", "time_zone", "tz"]);
const headerKey = (h: string) =>
  h
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, "_");

const csvRefusal = (message: string, path = "csv") =>
  new ApiError("validation_failed", `Invalid csv: ${message}`, { issues: [{ path, message }] });

/**
 * A CSV file's rows: a header row (a `phone_number` column, by that name or an alias; an optional
 * `timezone`; every other column a variable named by its header), then one recipient per record.
 * A header problem or a record of the wrong width is listed with the rows' issues by checkRecipients.
 */
export function rowsFromCsv(bytes: Uint8Array): { rows: GivenRow[]; issues: Issue[] } {
  let records: ReturnType<typeof parseCsv>;
  try {
    records = parseCsv(decodeCsv(bytes), MAX_RECIPIENTS + 1);
  } catch (err) {
    if (err instanceof CsvLimitError)
      throw csvRefusal(
        `at most ${MAX_RECIPIENTS.toLocaleString("en-US")} recipients per campaign (the file has more rows); split it into several campaigns`,
        "recipients",
      );
    if (err instanceof CsvError) throw csvRefusal(err.message);
    throw err;
  }
  const [header, ...body] = records;
  if (!header)
    throw csvRefusal(
      "the file is empty: it needs a header row (phone_number, then optional timezone and variables) and a row per recipient",
    );
  if (body.length === 0) throw csvRefusal("the file has a header row but no recipient rows");
  const issues: Issue[] = [];
  const keys = header.fields.map(headerKey);
  const phoneAt = keys.findIndex((k) => PHONE_COLUMNS.has(k));
  if (phoneAt < 0)
    throw csvRefusal(
      `the header row (line ${header.line}) has no phone_number column; name the column of numbers phone_number (or phone, number, to, mobile)`,
    );
  const zoneAt = keys.findIndex((k, i) => i !== phoneAt && TIMEZONE_COLUMNS.has(k));
  const variableColumns: Array<{ at: number; name: string }> = [];
  const named = new Set<string>();
  header.fields.forEach((raw, at) => {
    if (at === phoneAt || at === zoneAt) return;
    const name = raw.trim();
    const path = `csv.header.${at + 1}`;
    if (name === "") issues.push({ path, message: `column ${at + 1} of the header row has no name; name it or remove the column` });
    else if (PHONE_COLUMNS.has(headerKey(name)) || TIMEZONE_COLUMNS.has(headerKey(name)))
      issues.push({ path, message: `"${name}" is a second phone number or time zone column; keep one` });
    else if (!VARIABLE_NAME.test(name))
      issues.push({
        path,
        message: `"${name}" is not a variable name: a column other than phone_number and timezone is a {{variable}}, named with letters, digits and _ (e.g. first_name)`,
      });
    else if (named.has(name)) issues.push({ path, message: `"${name}" is named twice in the header row` });
    else {
      named.add(name);
      variableColumns.push({ at, name });
    }
  });
  if (variableColumns.length > VARIABLE_LIMITS.count)
    issues.push({ path: "csv.header", message: `at most ${VARIABLE_LIMITS.count} variable columns (got ${variableColumns.length})` });
  const width = header.fields.length;
  const rows = body.map((record, i): GivenRow => {
    if (record.fields.length !== width)
      issues.push({
        path: `recipients.${i}`,
        message: `has ${record.fields.length} field${record.fields.length === 1 ? "" : "s"}, the header row ${width} (CSV line ${record.line}); quote a field that holds a comma`,
      });
    const variables: Record<string, string> = {};
    // An empty cell gives no value: a variable the agent needs is then reported missing.
    for (const { at, name } of variableColumns) {
      const value = record.fields[at];
      if (value !== undefined && value !== "") variables[name] = value;
    }
    const zone = zoneAt < 0 ? undefined : record.fields[zoneAt];
    return { phoneNumber: record.fields[phoneAt] ?? "", timezone: zone || null, variables, line: record.line };
  });
  return { rows, issues };
}
