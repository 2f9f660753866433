import type { RequestOptions } from "../core.js";
import type { PagePromise } from "../pagination.js";
import type { Channel, ChannelCheck, ChannelCreateParams, ChannelListParams, ChannelUpdateParams } from "../types.js";
import { Resource } from "./resource.js";

/** Messaging channels: a Telegram bot or a WhatsApp Business number connected to an agent. */
export class Channels extends Resource {
  create(body: ChannelCreateParams, options?: RequestOptions): Promise<Channel> {
    return this.call({ operation: "createChannel", body }, options);
  }

  retrieve(id: string, options?: RequestOptions): Promise<Channel> {
    return this.call({ operation: "getChannel", pathParams: { id } }, options);
  }

  update(id: string, body: ChannelUpdateParams, options?: RequestOptions): Promise<Channel> {
    return this.call({ operation: "updateChannel", pathParams: { id }, body }, options);
  }

  list(query?: ChannelListParams, options?: RequestOptions): PagePromise<Channel> {
    return this.page("listChannels", query, options);
  }

  del(id: string, options?: RequestOptions): Promise<void> {
    return this.call({ operation: "deleteChannel", pathParams: { id }, expect: "empty" }, options);
  }

  /** Checks the channel's credentials and webhook with the provider now. */
  test(id: string, options?: RequestOptions): Promise<ChannelCheck> {
    return this.call({ operation: "testChannel", pathParams: { id } }, options);
  }
}
