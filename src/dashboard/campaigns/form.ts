// The new campaign form: what it shows (values as typed, errors on its fields, the recipients'
// problems as a table) and its fields ↔ the API's shapes: the campaign's fields are
// createCampaignFieldsSchema's (the multipart API's `campaign`), the recipients a CSV file or its
// text, read by the service as the API's CSV upload is.
import { decodeCsv, parseCsv } from "../../campaigns/csv";
import { DEFAULT_RETRY, RETRY_OUTCOMES } from "../../campaigns/schema";
import type { ErrorBody } from "../../lib/errors";
import { agentVersionOf, type Form, many, num, one } from "../forms";
import type { FieldErrors } from "../ui";

export interface NewCampaignValues {
  name: string;
  agentId: string;
  /** "": the live version at each dial. */
  agentVersion: string;
  fromNumbers: string[];
  /** "on" when the calls keep to a schedule. */
  scheduled: string;
  days: string[];
  start: string;
  end: string;
  timezone: string;
  maxAttempts: string;
  delayMinutes: string;
  on: string[];
  maxCallsInFlight: string;
  /** The recipients as CSV text (pasted, or the file's text kept after a refusal). */
  csvText: string;
}

export const EMPTY_CAMPAIGN: NewCampaignValues = {
  name: "",
  agentId: "",
  agentVersion: "",
  fromNumbers: [],
  scheduled: "",
  days: ["1", "2", "3", "4", "5"],
  start: "09:00",
  end: "18:00",
  timezone: "",
  maxAttempts: String(DEFAULT_RETRY.maxAttempts),
  delayMinutes: String(DEFAULT_RETRY.delaySeconds / 60),
  on: [...DEFAULT_RETRY.on],
  maxCallsInFlight: "",
  csvText: "",
};

export const campaignValuesOf = (form: Form): NewCampaignValues => ({
  name: one(form, "name"),
  agentId: one(form, "agentId"),
  agentVersion: one(form, "agentVersion"),
  fromNumbers: many(form, "fromNumbers"),
  scheduled: one(form, "scheduled"),
  days: many(form, "days"),
  start: one(form, "start"),
  end: one(form, "end"),
  timezone: one(form, "timezone"),
  maxAttempts: one(form, "maxAttempts"),
  delayMinutes: one(form, "delayMinutes"),
  on: many(form, "on"),
  maxCallsInFlight: one(form, "maxCallsInFlight"),
  csvText: one(form, "csvText"),
});

/** What the form says that the schema would word for an API client: said for a person instead. */
export function preErrors(v: NewCampaignValues): FieldErrors {
  const errors: FieldErrors = {};
  if (v.agentId === "") errors.agentId = "choose the agent that talks on the calls";
  if (v.fromNumbers.length === 0) errors.fromNumbers = "choose at least one caller id";
  return errors;
}

const number = (raw: string) => (raw.trim() === "" ? undefined : Number(raw));

/** The form → createCampaignFieldsSchema's shape (an empty field: the API's default). */
export const campaignFieldsOf = (v: NewCampaignValues, form: Form) => ({
  name: v.name,
  agentId: v.agentId,
  agentVersion: agentVersionOf(form),
  fromNumbers: v.fromNumbers,
  schedule: v.scheduled ? { days: v.days.map(Number), start: v.start, end: v.end, timezone: v.timezone.trim() } : null,
  retry: {
    maxAttempts: number(v.maxAttempts) ?? DEFAULT_RETRY.maxAttempts,
    delaySeconds: (() => {
      const minutes = number(v.delayMinutes);
      return minutes === undefined ? DEFAULT_RETRY.delaySeconds : Math.round(minutes * 60);
    })(),
    on: v.on.filter((o): o is (typeof RETRY_OUTCOMES)[number] => (RETRY_OUTCOMES as readonly string[]).includes(o)),
  },
  maxCallsInFlight: num(form, "maxCallsInFlight"),
});

/** The schema's or the service's path of a campaign field → the form's field. */
const FIELDS: Record<string, string> = {
  name: "name",
  agentId: "agentId",
  agentVersion: "agentVersion",
  fromNumbers: "fromNumbers",
  schedule: "days",
  "schedule.days": "days",
  "schedule.start": "start",
  "schedule.end": "end",
  "schedule.timezone": "timezone",
  retry: "maxAttempts",
  "retry.maxAttempts": "maxAttempts",
  "retry.delaySeconds": "delayMinutes",
  "retry.on": "on",
  maxCallsInFlight: "maxCallsInFlight",
  csv: "csv",
  recipients: "csv",
  form: "csv",
};

/** The form's field of a path (`schedule.days.0` → days): its longest prefix named above. */
export function fieldOf(path: string): string {
  const parts = path.split(".");
  for (let n = parts.length; n > 0; n--) {
    const field = FIELDS[parts.slice(0, n).join(".")];
    if (field) return field;
  }
  return "csv";
}

/** The schema's errors (validate's keys are paths) on the form's fields. */
export function onFormFields(errors: FieldErrors): FieldErrors {
  const out: FieldErrors = {};
  for (const [path, message] of Object.entries(errors)) out[fieldOf(path)] ??= message;
  return out;
}

/** A recipient's problem, as the table under the form lists it. */
export interface RowIssue {
  /** The line of the CSV file the row starts on (null: the file as a whole, or unknown). */
  line: number | null;
  /** The column: phone_number, timezone, a variable's name, "header, column 3", or "row". */
  field: string;
  message: string;
}

/** "…(CSV line 14)": the service names the line in the message; the table has its own column for it. */
const LINE_SUFFIX = / \(CSV line \d+\)$/;

function columnOf(rest: string[]): string {
  const [field, name] = rest;
  if (field === "phoneNumber") return "phone_number";
  if (field === "timezone") return "timezone";
  if (field === "variables") return name ?? "variables";
  return "row";
}

/**
 * The service's issues of a refused campaign, split: the campaign's on the form's fields, each
 * recipient's (and the CSV header's) as rows of a table with the CSV line it is on. The lines come
 * from the file as the service read it (its parser: the n-th recipient is the n-th record after
 * the header, blank lines skipped).
 */
export function splitIssues(issues: NonNullable<ErrorBody["issues"]>, csv: Uint8Array | null): { errors: FieldErrors; rows: RowIssue[] } {
  let records: Array<{ line: number }> = [];
  try {
    if (csv) records = parseCsv(decodeCsv(csv));
  } catch {
    // The file itself was refused: that issue says so, on the file's field.
  }
  const errors: FieldErrors = {};
  const rows: RowIssue[] = [];
  for (const { path, message } of issues) {
    const [head, index, ...rest] = path.split(".");
    if (head === "recipients" && index !== undefined) {
      rows.push({ line: records[Number(index) + 1]?.line ?? null, field: columnOf(rest), message: message.replace(LINE_SUFFIX, "") });
    } else if (head === "csv" && index === "header") {
      rows.push({ line: records[0]?.line ?? null, field: rest[0] ? `header, column ${rest[0]}` : "header", message });
    } else {
      errors[fieldOf(path)] ??= message;
    }
  }
  return { errors, rows };
}

/** The CSV's text to put back in the form after a refusal (a file that is not UTF-8, or too large to show, is not). */
export function csvTextOf(bytes: Uint8Array): string {
  if (bytes.byteLength > 512 * 1024) return "";
  try {
    return decodeCsv(bytes);
  } catch {
    return "";
  }
}
