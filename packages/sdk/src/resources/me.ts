import type { RequestOptions } from "../core.js";
import type { Identity } from "../types.js";
import { Resource } from "./resource.js";

export class Me extends Resource {
  /** Who the API key is: its organization and role. */
  retrieve(options?: RequestOptions): Promise<Identity> {
    return this.call({ operation: "getMe" }, options);
  }
}
