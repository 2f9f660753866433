// Validation messages in plain language, for the API's error bodies and the dashboard's forms
// alike: "must be at most 2" instead of zod's "Too big: expected number to be <=2". Set once,
// globally (z.config), when this module is imported (src/context.ts, src/dashboard/forms.ts).
// A message a schema spells out itself (`.min(1, "enter your password")`, custom refinements)
// wins over these; an issue not covered here keeps zod's English text.
import { z } from "zod";

type Issue = z.core.$ZodRawIssue;

const TYPE_NAMES: Record<string, string> = {
  string: "text",
  number: "a number",
  int: "a whole number",
  bigint: "a whole number",
  boolean: "true or false",
  array: "a list",
  tuple: "a list",
  object: "an object",
  record: "an object",
  map: "an object",
  set: "a list",
  date: "a date",
  null: "null",
  undefined: "absent",
};

const FORMATS: Record<string, string> = {
  email: "an email address",
  url: "a URL, e.g. https://example.com/path",
  uuid: "a UUID",
  guid: "a UUID",
  uuidv4: "a UUID",
  uuidv7: "a UUID",
  datetime: "a date and time in ISO 8601 with a time zone, e.g. 2025-01-31T09:00:00Z",
  date: "a date in ISO 8601, e.g. 2025-01-31",
  time: "a time in ISO 8601, e.g. 09:00:00",
  duration: "an ISO 8601 duration, e.g. PT30S",
  e164: "a phone number in E.164 format, e.g. +14155550123",
  ipv4: "an IPv4 address",
  ipv6: "an IPv6 address",
  base64: "base64 text",
  base64url: "base64url text",
  json_string: "JSON text",
  emoji: "an emoji",
};

const plural = (n: number | bigint, one: string, many: string) => `${n} ${Number(n) === 1 ? one : many}`;

/** What a list of allowed values reads like: `voice, chat or widget`. */
const oneOf = (values: readonly unknown[]) => {
  const shown = values.map((v) => (typeof v === "string" ? v : JSON.stringify(v)));
  return shown.length === 1 ? String(shown[0]) : `one of: ${shown.join(", ")}`;
};

const UNITS: Record<string, [string, string]> = {
  string: ["character", "characters"],
  array: ["item", "items"],
  set: ["item", "items"],
  map: ["entry", "entries"],
  file: ["byte", "bytes"],
};

function sizeMessage(issue: Extract<Issue, { code: "too_big" | "too_small" }>): string | undefined {
  const big = issue.code === "too_big";
  const limit = big ? (issue as { maximum: number | bigint }).maximum : (issue as { minimum: number | bigint }).minimum;
  const origin = String(issue.origin ?? "");
  const unit = UNITS[origin];
  if (unit) {
    const [one, many] = unit;
    const verb = origin === "string" || origin === "file" ? "be" : "have";
    if (!big && Number(limit) === 1 && issue.inclusive !== false)
      return origin === "string" ? "must not be empty" : `must have at least one ${one}`;
    if (issue.exact) return `must ${verb} exactly ${plural(limit, one, many)}`;
    return `must ${verb} at ${big ? "most" : "least"} ${plural(limit, one, many)}`;
  }
  if (origin === "date") {
    const day = new Date(Number(limit)).toISOString();
    return big ? `must be on or before ${day}` : `must be on or after ${day}`;
  }
  if (origin === "number" || origin === "int" || origin === "bigint") {
    if (issue.exact) return `must be exactly ${limit}`;
    if (big) return issue.inclusive === false ? `must be less than ${limit}` : `must be at most ${limit}`;
    return issue.inclusive === false ? `must be greater than ${limit}` : `must be at least ${limit}`;
  }
  return undefined;
}

/** The plain-language message of an issue, or undefined to keep zod's. */
export function plainMessage(issue: Issue): string | undefined {
  switch (issue.code) {
    case "invalid_type": {
      if (issue.input === undefined) return "is required";
      const expected = String(issue.expected);
      if (expected === "number" && typeof issue.input === "number") return "must be a finite number";
      const name = TYPE_NAMES[expected] ?? expected;
      return issue.input === null ? `must be ${name}, not null` : `must be ${name}`;
    }
    case "too_big":
    case "too_small":
      return sizeMessage(issue);
    case "invalid_format": {
      const f = issue as Issue & { format: string; prefix?: string; suffix?: string; includes?: string };
      if (f.format === "starts_with") return `must start with "${f.prefix}"`;
      if (f.format === "ends_with") return `must end with "${f.suffix}"`;
      if (f.format === "includes") return `must contain "${f.includes}"`;
      if (f.format === "regex") return "is not in the expected format";
      const what = FORMATS[f.format];
      return what ? `must be ${what}` : `must be a valid ${f.format}`;
    }
    case "not_multiple_of":
      return `must be a multiple of ${issue.divisor}`;
    case "invalid_value":
      return `must be ${oneOf(issue.values)}`;
    case "unrecognized_keys":
      return `${issue.keys.length === 1 ? "unknown field" : "unknown fields"}: ${issue.keys.join(", ")}`;
    case "invalid_union": {
      const options = (issue as { options?: unknown[] }).options;
      if (Array.isArray(options) && options.length > 0) return `must be ${oneOf(options)}`;
      return "does not match any of the accepted forms";
    }
    case "invalid_key":
      return "has a key that is not allowed";
    case "invalid_element":
      return "has an entry that is not valid";
    case "custom": // a refinement that names no message (those that do keep theirs)
      return "is not valid";
    default:
      return undefined;
  }
}

z.config({ customError: plainMessage });
