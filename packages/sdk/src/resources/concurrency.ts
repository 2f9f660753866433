import type { RequestOptions } from "../core.js";
import type { Concurrency } from "../types.js";
import { Resource } from "./resource.js";

export class ConcurrencyResource extends Resource {
  /** The workspace's calls in flight and its limit (a call over it is refused: RateLimitError, code calls_in_flight_limit). */
  retrieve(options?: RequestOptions): Promise<Concurrency> {
    return this.call({ operation: "getConcurrency" }, options);
  }
}
