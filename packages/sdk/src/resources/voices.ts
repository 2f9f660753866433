import type { RequestOptions } from "../core.js";
import type { PagePromise } from "../pagination.js";
import type { Voice, VoiceCreateParams, VoiceListParams, VoiceUpdateParams } from "../types.js";
import { Resource } from "./resource.js";

export class Voices extends Resource {
  create(body: VoiceCreateParams, options?: RequestOptions): Promise<Voice> {
    return this.call({ operation: "createVoice", body }, options);
  }

  retrieve(id: string, options?: RequestOptions): Promise<Voice> {
    return this.call({ operation: "getVoice", pathParams: { id } }, options);
  }

  /** Only the workspace's own voices change; a system voice answers ConflictError (read_only). */
  update(id: string, body: VoiceUpdateParams, options?: RequestOptions): Promise<Voice> {
    return this.call({ operation: "updateVoice", pathParams: { id }, body }, options);
  }

  list(query?: VoiceListParams, options?: RequestOptions): PagePromise<Voice> {
    return this.page("listVoices", query, options);
  }

  del(id: string, options?: RequestOptions): Promise<void> {
    return this.call({ operation: "deleteVoice", pathParams: { id }, expect: "empty" }, options);
  }
}
