// Chats (everyone), under /dashboard/chats, one file per page operation: every chat of the
// workspace (widget chats and messaging sessions, one read model: docs/chats.md) with filters and
// paging, and a chat's page with its transcript, cost and webhook deliveries, and its replay
// against a version. Reads through the chats service, as /v1/chats does; the replay goes through
// the agent-tests service (../agents/replays.ts).
import { screenRouter } from "../../../dashboard/routers";
import { registerListChatsPage } from "./list";
import { registerReplayChatPage } from "./replay";
import { registerShowChatPage } from "./show";

export function chatPages() {
  const app = screenRouter();
  registerListChatsPage(app);
  registerShowChatPage(app);
  registerReplayChatPage(app);
  return app;
}
