// /v1/campaigns: batches of outbound calls, their recipients and their moves between states (docs/campaigns.md).
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { registerCancelCampaign } from "./cancel";
import { registerCreateCampaign } from "./create";
import { registerDeleteCampaign } from "./delete";
import { registerGetCampaign } from "./get";
import { registerListCampaigns } from "./list";
import { registerListCampaignRecipients } from "./list-recipients";
import { registerPauseCampaign } from "./pause";
import { registerResumeCampaign } from "./resume";
import { registerStartCampaign } from "./start";
import { registerUpdateCampaign } from "./update";

export function registerCampaigns(app: OpenAPIHono<AppEnv>) {
  registerListCampaigns(app);
  registerCreateCampaign(app);
  registerGetCampaign(app);
  registerUpdateCampaign(app);
  registerDeleteCampaign(app);
  registerListCampaignRecipients(app);
  registerStartCampaign(app);
  registerPauseCampaign(app);
  registerResumeCampaign(app);
  registerCancelCampaign(app);
}
