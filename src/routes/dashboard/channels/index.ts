// Messaging channels (issue 14), under /dashboard/channels, one file per page operation: everyone
// sees the list and a channel's page; admins (settings:write, as webhooks) connect, change, test,
// pause, resume and remove (docs/dashboard.md). Every operation is the API's own function
// (src/messaging/channels.ts) validated by the API's own schemas (src/messaging/schema.ts).
import { screenRouter } from "../../../dashboard/routers";
import { registerCheckChannelPage } from "./check";
import { registerConfirmRemoveChannelPage } from "./confirm-remove";
import { registerCreateChannelPage } from "./create";
import { registerListChannelsPage } from "./list";
import { registerNewChannelPage } from "./new";
import { registerRemoveChannelPage } from "./remove";
import { registerSetChannelStatusPage } from "./set-status";
import { registerShowChannelPage } from "./show";
import { registerUpdateChannelPage } from "./update";

export function channelPages() {
  const app = screenRouter();
  registerListChannelsPage(app);
  registerNewChannelPage(app);
  registerCreateChannelPage(app);
  registerShowChannelPage(app);
  registerUpdateChannelPage(app);
  registerCheckChannelPage(app);
  registerSetChannelStatusPage(app);
  registerConfirmRemoveChannelPage(app);
  registerRemoveChannelPage(app);
  return app;
}
