// Campaigns (everyone), under /dashboard/campaigns, one file per page operation: the workspace's
// campaigns (list), the new campaign form and its create (a CSV upload, every row's problem shown,
// nothing created unless all is valid), a campaign's page (followed while it runs: live.ts) and
// its buttons. Every operation is the API's own (src/campaigns/service.ts: its rules, its moves).
import { screenRouter } from "../../../dashboard/routers";
import { registerCancelCampaignPage } from "./cancel";
import { registerCreateCampaignPage } from "./create";
import { registerDeleteCampaignPage } from "./delete";
import { registerListCampaignsPage } from "./list";
import { registerLiveCampaignPage } from "./live";
import { registerNewCampaignPage } from "./new";
import { registerPauseCampaignPage } from "./pause";
import { registerResumeCampaignPage } from "./resume";
import { registerShowCampaignPage } from "./show";
import { registerStartCampaignPage } from "./start";

export function campaignPages() {
  const app = screenRouter();
  registerListCampaignsPage(app);
  registerNewCampaignPage(app); // before /:id
  registerCreateCampaignPage(app);
  registerShowCampaignPage(app);
  registerLiveCampaignPage(app);
  registerStartCampaignPage(app);
  registerPauseCampaignPage(app);
  registerResumeCampaignPage(app);
  registerCancelCampaignPage(app);
  registerDeleteCampaignPage(app);
  return app;
}
