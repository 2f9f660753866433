// Agents (everyone): list, create, edit every field, delete, under /dashboard/agents, one file per
// page operation. The form's fields go through the API's own schemas (createAgentSchema /
// updateAgentSchema), then the API's own service (agents/service.ts: the same ownership rule,
// voice check and row mapping). An agent's page also talks to it: a web call and a test chat
// (the page's script posts to web-call.ts and chat.ts and reads JSON), and publishes or rolls back
// its versions (versions.ts).
import { screenRouter } from "../../../dashboard/routers";
import { registerAgentTestChatAction } from "./chat";
import { registerCreateAgentPage } from "./create";
import { registerDeleteAgentPage } from "./delete";
import { registerEditAgentPage } from "./edit";
import { registerListAgentsPage } from "./list";
import { registerNewAgentPage } from "./new";
import { registerRotateToolSecretPage } from "./rotate-tool-secret";
import { registerAddToolPage, registerRemoveToolPage } from "./tools";
import { registerUpdateAgentPage } from "./update";
import { registerPublishAgentPage, registerRollbackAgentPage } from "./versions";
import { registerAgentWebCallAction } from "./web-call";

export function agentPages() {
  const app = screenRouter();
  registerListAgentsPage(app);
  registerNewAgentPage(app);
  registerCreateAgentPage(app);
  registerEditAgentPage(app);
  registerUpdateAgentPage(app);
  registerDeleteAgentPage(app);
  registerAgentWebCallAction(app);
  registerAgentTestChatAction(app);
  registerRotateToolSecretPage(app);
  registerAddToolPage(app);
  registerRemoveToolPage(app);
  registerPublishAgentPage(app);
  registerRollbackAgentPage(app);
  return app;
}
