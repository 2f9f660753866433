// Agents (everyone): list, create, edit every field, delete, under /dashboard/agents, one file per
// page operation. The form's fields go through the API's own schemas (createAgentSchema /
// updateAgentSchema), then the API's own service (agents/service.ts: the same ownership rule,
// voice check and row mapping). An agent's page also talks to it: a web call and a test chat
// (the page's script posts to web-call.ts and chat.ts and reads JSON), publishes or rolls back its
// versions (versions.ts) and compares two (version-diff.tsx). Its Tests page (tests-*.ts,
// test-run*.ts*) runs the agent-tests service: its tests (each with its own page to edit every
// field), runs against a version, the results side by side per version, the replays, and each run's
// or replay's page. Replays are started from a call's or a chat's page (replays.ts).
import { screenRouter } from "../../../dashboard/routers";
import { registerAgentTestChatAction } from "./chat";
import { registerCreateAgentPage } from "./create";
import { registerDeleteAgentPage } from "./delete";
import { registerEditAgentPage } from "./edit";
import { registerListAgentsPage } from "./list";
import { registerNewAgentPage } from "./new";
import { registerRotateToolSecretPage } from "./rotate-tool-secret";
import { registerAgentTestRunPage } from "./test-run";
import { registerAgentTestRunLivePage } from "./test-run-live";
import { registerCreateAgentTestPage } from "./tests-create";
import { registerDeleteAgentTestPage } from "./tests-delete";
import { registerEditAgentTestPage } from "./tests-edit";
import { registerAgentTestsPage } from "./tests-list";
import { registerAgentTestsLivePage } from "./tests-live";
import { registerRunAgentTestPage, registerRunAgentTestsPage } from "./tests-run";
import { registerUpdateAgentTestPage } from "./tests-update";
import { registerAddToolPage, registerRemoveToolPage } from "./tools";
import { registerUpdateAgentPage } from "./update";
import { registerAgentVersionDiffPage } from "./version-diff";
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
  registerAgentVersionDiffPage(app);
  registerAgentTestsPage(app);
  // Before the test's own page and its save: `live` and `run` are not test ids.
  registerAgentTestsLivePage(app);
  registerCreateAgentTestPage(app);
  registerRunAgentTestsPage(app);
  registerRunAgentTestPage(app);
  registerDeleteAgentTestPage(app);
  registerEditAgentTestPage(app);
  registerUpdateAgentTestPage(app);
  registerAgentTestRunPage(app);
  registerAgentTestRunLivePage(app);
  return app;
}
