// Calls in flight (docs/campaigns.md, "Calls in flight"): the calls table's triggers count them per
// workspace and per campaign, and refuse the insert of a call that would pass either limit
// (migration 0024). This turns that refusal into the error table's answer, and reads the figures.
import { inFlightLimitOf } from "../db/errors";
import { ApiError } from "../lib/errors";

/** A call refused for the limit: `workspace` (a single call gets 429) or `campaign` (its runner waits). */
export class CallsInFlightLimitError extends ApiError {
  constructor(readonly scope: "workspace" | "campaign") {
    super(
      "calls_in_flight_limit",
      scope === "workspace"
        ? "The workspace has as many calls in flight as it may (GET /v1/concurrency); try again when one has ended."
        : "The campaign has as many calls in flight as its maxCallsInFlight.",
    );
    this.name = "CallsInFlightLimitError";
  }
}

/** Runs a call's insert; the trigger's refusal becomes CallsInFlightLimitError, any other failure stays as it is. */
export async function withinInFlightLimit<T>(insert: Promise<T>): Promise<T> {
  try {
    return await insert;
  } catch (err) {
    const scope = inFlightLimitOf(err);
    if (scope) throw new CallsInFlightLimitError(scope);
    throw err;
  }
}
