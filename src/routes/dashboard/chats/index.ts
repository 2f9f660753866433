// Chats (everyone), under /dashboard/chats, one file per page operation: every chat of the
// workspace (widget chats and messaging sessions, one read model: docs/chats.md) with filters and
// paging, and a chat's page with its transcript, cost and webhook deliveries. Reads through the
// chats service, as /v1/chats does.
import { screenRouter } from "../../../dashboard/routers";
import { registerListChatsPage } from "./list";
import { registerShowChatPage } from "./show";

export function chatPages() {
  const app = screenRouter();
  registerListChatsPage(app);
  registerShowChatPage(app);
  return app;
}
