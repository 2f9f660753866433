// The /v1 surface: one router mounted at /v1 (src/app.ts), its paths relative to it; a folder per
// resource, one file per operation (its createRoute definition and its registerX), registered here
// in order (the OpenAPI document's path order), directly or by the resource's index.ts. Its own
// middleware: CSRF for cookie sessions and the body types, then authentication and the rate limit
// for every operation; the exceptions carry route-level middleware (GET /v1/me authenticates
// itself, with the organization optional; the webhook operations require settings access). Its
// router refuses, on every operation, query parameters the operation does not define (createApiRouter).
import { createApiRouter } from "../../context";
import { authenticate, requireSettingsAccess } from "../../middleware/auth";
import { sameOriginForCookies, v1BodyPolicy } from "../../middleware/guards";
import { rateLimit } from "../../middleware/ratelimit";
import { registerAgentTests } from "./agent-tests";
import { registerCreateAgent } from "./agents/create";
import { registerDeleteAgent } from "./agents/delete";
import { registerGetAgent } from "./agents/get";
import { registerListAgents } from "./agents/list";
import { registerRotateToolSecret } from "./agents/rotate-tool-secret";
import { registerUpdateAgent } from "./agents/update";
import { registerDiffAgentVersions } from "./agents/versions/diff";
import { registerGetAgentVersion } from "./agents/versions/get";
import { registerListAgentVersions } from "./agents/versions/list";
import { registerPublishAgent } from "./agents/versions/publish";
import { registerRollbackAgent } from "./agents/versions/rollback";
import { registerCreateCall } from "./calls/create";
import { registerCreateWebCall } from "./calls/create-web-call";
import { registerEndCall } from "./calls/end";
import { registerGetCall } from "./calls/get";
import { registerGetCallRecording } from "./calls/get-recording";
import { registerListCalls } from "./calls/list";
import { registerCampaigns } from "./campaigns";
import { registerChannels } from "./channels";
import { registerGetChat } from "./chats/get";
import { registerListChats } from "./chats/list";
import { registerGetConcurrency } from "./concurrency/get";
import { registerKnowledgeBases } from "./knowledge-bases";
import { registerGetMe } from "./me/get";
import { registerModels } from "./models";
import { registerPhoneNumbers } from "./phone-numbers";
import { registerUsage } from "./usage/get";
import { registerCreateVoice } from "./voices/create";
import { registerDeleteVoice } from "./voices/delete";
import { registerGetVoice } from "./voices/get";
import { registerListVoices } from "./voices/list";
import { registerUpdateVoice } from "./voices/update";
import { API_MOUNT, registerWebhookEndpoints } from "./webhook-endpoints";
import { registerWidgets } from "./widgets";

/** Every /v1 operation, one file each, on one router with the surface's middleware. */
export function v1Routes() {
  const v1 = createApiRouter();
  v1.use("*", sameOriginForCookies, v1BodyPolicy);
  // Authenticates itself (route-level middleware: a session needs no organization here), so it
  // answers before the router's authentication below runs.
  registerGetMe(v1);
  v1.use("*", authenticate(), rateLimit);

  registerListAgents(v1);
  registerCreateAgent(v1);
  registerRotateToolSecret(v1);
  registerGetAgent(v1);
  registerUpdateAgent(v1);
  registerDeleteAgent(v1);
  registerListAgentVersions(v1);
  registerGetAgentVersion(v1);
  registerDiffAgentVersions(v1);
  registerPublishAgent(v1);
  registerRollbackAgent(v1);
  registerAgentTests(v1);

  registerCreateCall(v1);
  registerCreateWebCall(v1);
  registerGetCall(v1);
  registerListCalls(v1);
  registerGetCallRecording(v1);
  registerEndCall(v1);
  registerGetConcurrency(v1);
  registerPhoneNumbers(v1);
  registerCampaigns(v1);

  registerListVoices(v1);
  registerCreateVoice(v1);
  registerGetVoice(v1);
  registerUpdateVoice(v1);
  registerDeleteVoice(v1);

  registerListChats(v1);
  registerGetChat(v1);

  registerKnowledgeBases(v1);

  registerWidgets(v1);
  registerChannels(v1);
  registerModels(v1);
  registerUsage(v1);

  for (const path of [API_MOUNT.base, `${API_MOUNT.base}/*`]) v1.use(path, requireSettingsAccess);
  registerWebhookEndpoints(v1, API_MOUNT);
  return v1;
}
