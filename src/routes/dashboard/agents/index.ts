// Agents (everyone): list, create, edit every field, delete, under /dashboard/agents, one file per
// page operation. The form's fields go through the API's own schemas (createAgentSchema /
// updateAgentSchema), then the API's own service (agents/service.ts: the same ownership rule,
// voice check and row mapping). An agent's page also talks to it: a web call and a test chat
// (the page's script posts to web-call.ts and chat.ts and reads JSON), and publishes or rolls back
// its versions (versions.ts). Its Tests page (tests-*.ts, test-run.tsx) runs the agent-tests service:
// its tests, runs against a version, the results side by side per version and each run's page.
import { screenRouter } from "../../../dashboard/routers";
import { registerAgentTestChatAction } from "./chat";
import { registerCreateAgentPage } from "./create";
import { registerDeleteAgentPage } from "./delete";
import { registerEditAgentPage } from "./edit";
import { registerListAgentsPage } from "./list";
import { registerNewAgentPage } from "./new";
import { registerRotateToolSecretPage } from "./rotate-tool-secret";
import { registerAgentTestRunPage } from "./test-run";
import { registerCreateAgentTestPage } from "./tests-create";
import { registerDeleteAgentTestPage } from "./tests-delete";
import { registerAgentTestsPage } from "./tests-list";
import { registerAgentTestsLivePage } from "./tests-live";
import { registerRunAgentTestPage, registerRunAgentTestsPage } from "./tests-run";
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
  registerAgentTestsPage(app);
  registerAgentTestsLivePage(app);
  registerCreateAgentTestPage(app);
  registerRunAgentTestsPage(app);
  registerRunAgentTestPage(app);
  registerDeleteAgentTestPage(app);
  registerAgentTestRunPage(app);
  return app;
}
