import type { RequestOptions } from "../core.js";
import type { PagePromise } from "../pagination.js";
import type { PhoneNumber, PhoneNumberCreateParams, PhoneNumberListParams, PhoneNumberUpdateParams } from "../types.js";
import { Resource } from "./resource.js";

/** The caller ids the workspace may call from, and the agent that answers each one's incoming calls. */
export class PhoneNumbers extends Resource {
  create(body: PhoneNumberCreateParams, options?: RequestOptions): Promise<PhoneNumber> {
    return this.call({ operation: "createPhoneNumber", body }, options);
  }

  list(query?: PhoneNumberListParams, options?: RequestOptions): PagePromise<PhoneNumber> {
    return this.page("listPhoneNumbers", query, options);
  }

  /** A new label, or the agent that answers the number's incoming calls (`agentId`, null to stop answering). */
  update(id: string, body: PhoneNumberUpdateParams, options?: RequestOptions): Promise<PhoneNumber> {
    return this.call({ operation: "updatePhoneNumber", pathParams: { id }, body }, options);
  }

  del(id: string, options?: RequestOptions): Promise<void> {
    return this.call({ operation: "deletePhoneNumber", pathParams: { id }, expect: "empty" }, options);
  }
}
