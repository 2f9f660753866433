// The delivery log's filters on an endpoint's page, from its query string: checked by the API's own
// schema (deliveryFiltersSchema), so the page and GET /webhooks/{id}/deliveries take the same
// values. A value they refuse filters nothing and is told on the page (the API answers 400).

import type { LogFilterValues } from "../../../dashboard/webhooks/log";
import type { DeliveryFilters } from "../../../webhooks/log";
import { deliveryFiltersSchema } from "../../v1/webhook-endpoints/schema";

export interface LogFilters {
  /** What the log is narrowed to. */
  filters: DeliveryFilters;
  /** What the form shows: the values taken ("" for one refused). */
  values: LogFilterValues;
  /** One line per value refused. */
  problems: string[];
}

const NAMES = { status: "status", event: "event" } as const;

export function logFiltersOf(query: Partial<LogFilterValues>): LogFilters {
  const out: LogFilters = { filters: {}, values: { status: "", event: "" }, problems: [] };
  for (const name of Object.keys(NAMES) as Array<keyof typeof NAMES>) {
    const raw = query[name] ?? "";
    if (raw === "") continue;
    const checked = deliveryFiltersSchema.shape[name].safeParse(raw);
    if (checked.success && checked.data !== undefined) {
      out.values[name] = checked.data;
      Object.assign(out.filters, { [name]: checked.data });
    } else {
      const shown = raw.length > 40 ? `${raw.slice(0, 40)}…` : raw;
      const why = checked.success ? "is not valid" : (checked.error.issues[0]?.message ?? "is not valid");
      out.problems.push(`The ${name} filter “${shown}” ${why}: showing every ${name}.`);
    }
  }
  return out;
}
