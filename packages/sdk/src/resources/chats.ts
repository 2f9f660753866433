import type { RequestOptions } from "../core.js";
import type { PagePromise } from "../pagination.js";
import type { Chat, ChatListParams, ChatSummary } from "../types.js";
import { Resource } from "./resource.js";

/** Every chat, widget and messaging: transcript, end user, cost. */
export class Chats extends Resource {
  retrieve(id: string, options?: RequestOptions): Promise<Chat> {
    return this.call({ operation: "getChat", pathParams: { id } }, options);
  }

  list(query?: ChatListParams, options?: RequestOptions): PagePromise<ChatSummary> {
    return this.page("listChats", query, options);
  }
}
