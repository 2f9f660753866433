// The Usage screen's range, from its query string: a preset (?days=7|30|90), or any days
// (?from=YYYY-MM-DD&to=YYYY-MM-DD, both included, UTC), checked: real days, the first not after the
// last, the last not after today, at most MAX_RANGE_DAYS. Without either: the last 30 days.
import { type DayRange, daysOf, lastDays } from "../../usage/service";
import type { FieldErrors } from "../ui";

/** The presets the page links to, in days back from today. */
export const USAGE_PRESETS = [7, 30, 90] as const;
export const DEFAULT_DAYS = 30;
/** The longest range: a year and a day (a leap year's whole year fits). */
export const MAX_RANGE_DAYS = 366;

export interface UsageRange extends DayRange {
  /** The preset it is (7, 30, 90), or null for days chosen with the dates. */
  preset: number | null;
  /** How the page names it: "the last 30 days", "the days from 2026-01-01 to 2026-01-31", "the day 2026-01-05". */
  label: string;
}

export interface RangeQuery {
  days?: string;
  from?: string;
  to?: string;
}

const DAY_RE = /^\d{4}-\d{2}-\d{2}$/;
/** A YYYY-MM-DD that names a real day (2026-02-30 does not). */
const isDay = (value: string) => DAY_RE.test(value) && new Date(`${value}T00:00:00Z`).toISOString().slice(0, 10) === value;

const preset = (days: number): UsageRange => ({ ...lastDays(days), preset: days, label: `the last ${days} days` });

/** The range the query asks for, or the default with the problems on the date fields. */
export function rangeOf(query: RangeQuery): { range: UsageRange; errors: FieldErrors; values: { from: string; to: string } } {
  const from = (query.from ?? "").trim();
  const to = (query.to ?? "").trim();
  const values = { from, to };
  if (!from && !to) {
    const days = Number(query.days);
    return { range: preset((USAGE_PRESETS as readonly number[]).includes(days) ? days : DEFAULT_DAYS), errors: {}, values };
  }
  const errors: FieldErrors = {};
  const today = lastDays(1).lastDay;
  if (!from) errors.from = "is required";
  else if (!isDay(from)) errors.from = "must be a day (YYYY-MM-DD)";
  if (!to) errors.to = "is required";
  else if (!isDay(to)) errors.to = "must be a day (YYYY-MM-DD)";
  else if (to > today) errors.to = `must not be after today (${today}, UTC)`;
  if (Object.keys(errors).length === 0) {
    if (from > to) errors.from = "must not be after the last day";
    else if (daysOf({ firstDay: from, lastDay: to }).length > MAX_RANGE_DAYS)
      errors.to = `makes the range longer than ${MAX_RANGE_DAYS} days`;
  }
  if (Object.keys(errors).length > 0) return { range: preset(DEFAULT_DAYS), errors, values };
  return {
    range: { firstDay: from, lastDay: to, preset: null, label: from === to ? `the day ${from}` : `the days from ${from} to ${to}` },
    errors,
    values,
  };
}
