// Agents (everyone): list, create, edit every field, delete, under /dashboard/agents, one file per
// page operation. The form's fields go through the API's own schemas (createAgentSchema /
// updateAgentSchema), then the API's own service (agents/service.ts: the same ownership rule,
// voice check and row mapping).
import { screenRouter } from "../../../dashboard/routers";
import { registerCreateAgentPage } from "./create";
import { registerDeleteAgentPage } from "./delete";
import { registerEditAgentPage } from "./edit";
import { registerListAgentsPage } from "./list";
import { registerNewAgentPage } from "./new";
import { registerUpdateAgentPage } from "./update";

export function agentPages() {
  const app = screenRouter();
  registerListAgentsPage(app);
  registerNewAgentPage(app);
  registerCreateAgentPage(app);
  registerEditAgentPage(app);
  registerUpdateAgentPage(app);
  registerDeleteAgentPage(app);
  return app;
}
