// THE table of every route of the app. The security suite (test/integration/security.test.ts)
// iterates it: no credential, malformed / unknown / revoked keys, another workspace's id,
// member vs admin. test/unit/routes-complete.test.ts fails when the app has a route that is
// missing here or from the OpenAPI document, so a new route cannot skip these checks.
import { pcmToWav } from "../../src/lib/audio";
import { addCallerId } from "./calls";
import { createCampaign, SHARED_NUMBER } from "./campaigns";
import { addMemberTo, type Workspace } from "./harness";
import { connectTelegram } from "./messaging";
import { createWidget, visitor, chat as widgetChat } from "./widgets";

/** Path parameters of a resource made in a workspace: `{ id }`, or more for nested paths. */
export type Params = Record<string, string>;

export interface RouteCase {
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  /** Hono path syntax, as registered: `/v1/agents/:id`. */
  path: string;
  /**
   * api_key: API key, or session + x-organization-id (/v1, /webhooks);
   * session: dashboard routes (session only, API keys refused);
   * public: no credential, with `why` saying what it may reach;
   * page: a dashboard HTML page (session cookie only: anything else is redirected to the
   * sign-in page; POSTs need the CSRF token, which the suite adds).
   */
  auth: "api_key" | "session" | "public" | "page";
  /** Admin-only routes: members lack it (settings:read / settings:write). */
  permission?: "settings:read" | "settings:write";
  /** Path parameters that name no resource (a version number): the same in every request of the suite. */
  params?: Params;
  /** Routes with path parameters: makes the resource in `ws`, for the tenancy check. */
  resource?: (ws: Workspace) => Promise<Params>;
  /** A valid body, so the request would pass validation and reach auth and tenancy. */
  body?: unknown;
  /** A valid multipart body instead, for upload routes. */
  form?: () => FormData;
  /** page POSTs: form fields that pass validation (the suite adds `_csrf`). */
  fields?: Record<string, string>;
  /** public routes: what they may and may not reach. */
  why?: string;
}

const PERSONA = "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77";

const createdId = async (ws: Workspace, path: string, body: unknown): Promise<string> => {
  const res = await ws.api(path, { method: "POST", json: body });
  if (res.status !== 201) throw new Error(`POST ${path} failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
};

const channel = async (ws: Workspace) => ({ id: (await connectTelegram(ws)).channel.id });
const agent = async (ws: Workspace) => ({ id: await createdId(ws, "/v1/agents", { name: "Tenant's agent", personaId: PERSONA }) });
/** An agent with tools (a function tool and the built-ins): its secret and tools are the workspace's only. */
const agentWithTools = async (ws: Workspace) => ({
  id: await createdId(ws, "/v1/agents", {
    name: "Tenant's agent with tools",
    personaId: PERSONA,
    tools: [
      { type: "function", name: "lookup_order", description: "Looks up an order.", url: "https://tools.example.com/order" },
      { type: "end_call" },
      { type: "transfer_call", destinations: [{ number: "+14155550100" }] },
    ],
  }),
});
/** An agent with a second version, a draft that changes its prompt (its versions' diff shows a change). */
const agentWithDraft = async (ws: Workspace) => {
  const { id } = await agent(ws);
  const res = await ws.api(`/v1/agents/${id}?draft=true`, { method: "PATCH", json: { systemPrompt: "A draft's prompt." } });
  if (res.status !== 200) throw new Error(`a draft failed: ${res.status} ${await res.text()}`);
  return { id };
};
/** A scripted test of one of the workspace's agents. */
const agentTest = async (ws: Workspace) => {
  const { id } = await agent(ws);
  const body = { name: "Tenant's test", scenario: { kind: "script", turns: ["Hello"] } };
  return { id, testId: await createdId(ws, `/v1/agents/${id}/tests`, body) };
};
/** A run of that test (it plays in the background; any status will do). */
const agentTestRun = async (ws: Workspace) => {
  const { id, testId } = await agentTest(ws);
  const res = await ws.api(`/v1/agents/${id}/tests/${testId}/runs`, { method: "POST" });
  if (res.status !== 202) throw new Error(`running a test failed: ${res.status} ${await res.text()}`);
  return { id, runId: ((await res.json()) as { data: Array<{ id: string }> }).data[0]?.id as string };
};
const knowledgeBase = async (ws: Workspace) => ({ id: await createdId(ws, "/v1/knowledge-bases", { name: "Tenant's knowledge" }) });
/** A knowledge base with one document (text: processed in the background, any status will do). */
const knowledgeDocument = async (ws: Workspace) => {
  const { id } = await knowledgeBase(ws);
  const res = await ws.api(`/v1/knowledge-bases/${id}/documents`, {
    method: "POST",
    json: { type: "text", name: "Hours", text: "We open at eight." },
  });
  if (res.status !== 202) throw new Error(`adding a document failed: ${res.status} ${await res.text()}`);
  return { id, documentId: ((await res.json()) as { id: string }).id };
};

/** One of the sandbox provider's own voices (`alloy`), so its sample can be synthesized (GET …/sample). */
const voice = async (ws: Workspace) => ({
  id: await createdId(ws, "/v1/voices", { name: "Tenant's voice", provider: "sandbox", providerVoiceId: "alloy", language: "en" }),
});
const endpoint = async (ws: Workspace) => ({
  id: await createdId(ws, "/v1/webhook-endpoints", { name: "Tenant's hook", useTestReceiver: true, channels: ["voice"] }),
});
/** An endpoint with one delivery (Send Test to the built-in receiver). */
const delivery = async (ws: Workspace) => {
  const { id } = await endpoint(ws);
  const res = await ws.api(`/v1/webhook-endpoints/${id}/test`, { method: "POST" });
  if (res.status !== 200) throw new Error(`send test failed: ${res.status}`);
  return { id, deliveryId: ((await res.json()) as { id: string }).id };
};

/** A web call in the workspace (never joined: it creates no audio and no charge). */
const webCall = async (ws: Workspace) => {
  const { id } = await agent(ws);
  const res = await ws.api(`/v1/agents/${id}/web-call`, { method: "POST", json: {} });
  if (res.status !== 201) throw new Error(`web call failed: ${res.status} ${await res.text()}`);
  return { id: ((await res.json()) as { call: { id: string } }).call.id };
};
/** A draft campaign of the workspace (its own agent, the stack's shared caller id, three recipients). */
const campaign = async (ws: Workspace) => ({ id: (await createCampaign(ws)).id });
/** A number of the Twilio sandbox's account, added as the workspace's caller id. */
const phoneNumber = async (ws: Workspace) => ({ id: (await addCallerId(ws)).id });
/** A widget of one of the workspace's agents. */
const widget = async (ws: Workspace) => ({
  id: await createdId(ws, "/v1/widgets", {
    agentId: (await agent(ws)).id,
    name: "Tenant's widget",
    allowedOrigins: ["https://tenant.example"],
  }),
});
/** A widget chat of the workspace: a visitor's first message through the widget's public route. */
const widgetChatSession = async (ws: Workspace) => {
  const { token } = await createWidget(ws);
  return { id: (await widgetChat(token, { visitorId: visitor(), message: "Hello" })).sessionId };
};

const ENDPOINT_BODY = { name: "hook", useTestReceiver: true, channels: ["voice"] };
/** The same endpoint as the dashboard's form posts it. */
const PAGE_ENDPOINT_FIELDS = { name: "hook", useTestReceiver: "on", channels: "voice", payloadMode: "all" };

/** A Telegram channel as the dashboard's connect form posts it (the agent is not the workspace's: a 400 page). */
const PAGE_CHANNEL_FIELDS = {
  type: "telegram",
  name: "Bot",
  agentId: PERSONA,
  botToken: "123456:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
};

const CHAT_BODY = { model: "sandbox-chat", messages: [{ role: "user", content: "Hello" }] };
/** The seeded system voice "Alloy". */
const SYSTEM_VOICE = "00000000-0000-7000-8000-000000000001";
/** A short WAV of silence (valid audio) as an upload. */
const audioForm = () => {
  const form = new FormData();
  form.set("file", new Blob([pcmToWav(new Uint8Array(16_000), 16_000)], { type: "audio/wav" }), "silence.wav");
  return form;
};
const withModel = (form: FormData) => {
  form.set("model", "whisper-1");
  return form;
};

/** The webhook endpoint operations, mounted for the API (api_key) and the dashboard (session). */
const webhookRoutes = (base: string, auth: "api_key" | "session"): RouteCase[] => [
  { method: "POST", path: base, auth, permission: "settings:write", body: ENDPOINT_BODY },
  { method: "GET", path: base, auth, permission: "settings:read" },
  { method: "GET", path: `${base}/:id`, auth, permission: "settings:read", resource: endpoint },
  { method: "PATCH", path: `${base}/:id`, auth, permission: "settings:write", body: { name: "x" }, resource: endpoint },
  { method: "DELETE", path: `${base}/:id`, auth, permission: "settings:write", resource: endpoint },
  { method: "POST", path: `${base}/:id/test`, auth, permission: "settings:write", body: { event: "widget.started" }, resource: endpoint },
  { method: "POST", path: `${base}/:id/rotate-secret`, auth, permission: "settings:write", resource: endpoint },
  { method: "GET", path: `${base}/:id/test-receiver`, auth, permission: "settings:read", resource: endpoint },
  { method: "POST", path: `${base}/:id/deliveries/:deliveryId/resend`, auth, permission: "settings:write", resource: delivery },
];

export const ROUTES: RouteCase[] = [
  { method: "GET", path: "/health", auth: "public", why: "liveness; touches no data" },
  { method: "GET", path: "/v1/openapi.json", auth: "public", why: "the API's description; no data" },
  { method: "GET", path: "/docs", auth: "public", why: "reference page; no data" },
  {
    method: "POST",
    path: "/dashboard/api/sign-in",
    auth: "public",
    why: "exchanges email+password for a session; reveals nothing on failure",
  },
  {
    method: "POST",
    path: "/webhooks/test-receiver/:token",
    auth: "public",
    why: "appends to one endpoint's capped capture list, found by its unguessable token; reads nothing back",
  },
  {
    method: "POST",
    path: "/internal/qstash/deliver",
    auth: "public",
    why: "QStash only: refused without a valid Upstash-Signature (test/integration/webhooks/qstash.test.ts)",
  },
  { method: "POST", path: "/internal/qstash/failed", auth: "public", why: "QStash only: refused without a valid Upstash-Signature" },
  {
    method: "POST",
    path: "/internal/qstash/knowledge",
    auth: "public",
    why: "QStash only: refused without a valid Upstash-Signature (test/integration/knowledge/qstash.test.ts)",
  },
  {
    method: "POST",
    path: "/internal/qstash/knowledge-failed",
    auth: "public",
    why: "QStash only: refused without a valid Upstash-Signature (test/integration/knowledge/qstash.test.ts)",
  },
  {
    method: "POST",
    path: "/telephony/twilio/status/:callId",
    auth: "public",
    why: "Twilio only: refused without a valid X-Twilio-Signature (test/integration/calls/errors.test.ts); moves one call along its state machine, reads nothing back",
  },
  {
    method: "POST",
    path: "/telephony/twilio/amd/:callId",
    auth: "public",
    why: "Twilio only: refused (401) without a valid X-Twilio-Signature, 404 for another call's CallSid (calls/voicemail.test.ts); stores who answered one call, once, and hands it to that call's session; reads nothing back",
  },
  {
    method: "POST",
    path: "/telephony/twilio/dial/:callId",
    auth: "public",
    why: "Twilio only: refused (401) without a valid X-Twilio-Signature, 404 for a call that was not transferred or another call's CallSid (tools/calls.test.ts); records how one call's transfer leg went, once; answers TwiML (a hang-up, or a sentence then a hang-up); reads nothing back",
  },
  {
    method: "POST",
    path: "/telephony/twilio/voice",
    auth: "public",
    why: "Twilio only: refused (401) without a valid X-Twilio-Signature (calls/inbound.test.ts); answers TwiML for a call to a workspace's number, creating that one call for the agent assigned to it; reads nothing back",
  },
  {
    method: "GET",
    path: "/telephony/twilio/media/:callId",
    auth: "public",
    why: "Twilio's media stream for one phone call: the session closes it unless `start` carries that call's stream token (calls/errors.test.ts); answers 426 without an upgrade",
  },
  {
    method: "GET",
    path: "/web-calls/:callId/socket",
    auth: "public",
    why: "the browser's socket of one web call: refused (401) without that call's one-time, unexpired token (calls/failures.test.ts refuses a wrong one, calls/happy.test.ts uses one once)",
  },
  // The embeddable widget's public routes: each takes one widget's token (query) from a page on
  // its allowed origins, is rate-limited, and reaches only that widget (widgets/errors.test.ts).
  // The dashboard's live preview calls them with `?preview=<widget id>` instead: only with a live
  // dashboard session, from the dashboard's own origin, for a widget of the user's workspaces
  // (widgets/preview.test.ts refuses every other case).
  {
    method: "GET",
    path: "/widget/v1/config",
    auth: "public",
    why: "one widget's display settings (mode, title, greeting, colours); never the agent's prompt or other data; 401 without a live token, 403 off its allowed origins",
  },
  {
    method: "POST",
    path: "/widget/v1/chat",
    auth: "public",
    why: "appends to and reads back only the calling visitor's own session of that widget (404 for any other), and asks that widget's agent; metered to its workspace; 401/403/429 as config",
  },
  {
    method: "POST",
    path: "/widget/v1/sessions/:id/end",
    auth: "public",
    why: "ends only the calling visitor's own session of that widget (404 for any other); reads nothing back; 401/403/429 as config",
  },
  {
    method: "POST",
    path: "/widget/v1/web-call",
    auth: "public",
    why: "starts a web call with that widget's agent only (voice modes), answering its one-time socket URL; 401/403/429 as config",
  },

  // Messaging providers' webhooks: each delivery proves itself with its channel's secret
  // (messaging/*.test.ts: forged deliveries are refused and store nothing).
  {
    method: "POST",
    path: "/channels/telegram/:id",
    auth: "public",
    why: "Telegram only: refused (401) without the channel's X-Telegram-Bot-Api-Secret-Token; stores that channel's new messages, reads nothing back",
  },
  {
    method: "GET",
    path: "/channels/whatsapp/:id",
    auth: "public",
    why: "Meta's verification handshake: echoes hub.challenge only with the channel's verify token (403 otherwise); reads nothing else",
  },
  {
    method: "POST",
    path: "/channels/whatsapp/:id",
    auth: "public",
    why: "Meta only: refused (401) without a valid X-Hub-Signature-256 of the body under the channel's app secret; stores that number's new messages",
  },

  { method: "GET", path: "/v1/me", auth: "api_key" },

  { method: "GET", path: "/v1/agents", auth: "api_key" },
  { method: "POST", path: "/v1/agents", auth: "api_key", body: { name: "Security check", personaId: PERSONA } },
  { method: "GET", path: "/v1/agents/:id", auth: "api_key", resource: agentWithTools },
  {
    method: "PATCH",
    path: "/v1/agents/:id",
    auth: "api_key",
    body: { name: "Renamed", tools: [{ type: "end_call" }] },
    resource: agentWithTools,
  },
  { method: "POST", path: "/v1/agents/:id/rotate-tool-secret", auth: "api_key", resource: agentWithTools },
  { method: "DELETE", path: "/v1/agents/:id", auth: "api_key", resource: agent },
  { method: "GET", path: "/v1/agents/:id/versions", auth: "api_key", resource: agent },
  { method: "GET", path: "/v1/agents/:id/versions/:version", auth: "api_key", params: { version: "1" }, resource: agent },
  {
    method: "GET",
    path: "/v1/agents/:id/versions/:from/diff/:to",
    auth: "api_key",
    params: { from: "1", to: "1" },
    resource: agent,
  },
  { method: "POST", path: "/v1/agents/:id/publish", auth: "api_key", body: { version: 1 }, resource: agent },
  { method: "POST", path: "/v1/agents/:id/rollback", auth: "api_key", body: { version: 1 }, resource: agent },
  { method: "GET", path: "/v1/agents/:id/tests", auth: "api_key", resource: agent },
  {
    method: "POST",
    path: "/v1/agents/:id/tests",
    auth: "api_key",
    body: { name: "Security check", scenario: { kind: "script", turns: ["Hi"] } },
    resource: agent,
  },
  { method: "POST", path: "/v1/agents/:id/tests/runs", auth: "api_key", resource: agentTest },
  { method: "GET", path: "/v1/agents/:id/tests/:testId", auth: "api_key", resource: agentTest },
  { method: "PATCH", path: "/v1/agents/:id/tests/:testId", auth: "api_key", body: { name: "Renamed" }, resource: agentTest },
  { method: "DELETE", path: "/v1/agents/:id/tests/:testId", auth: "api_key", resource: agentTest },
  { method: "POST", path: "/v1/agents/:id/tests/:testId/runs", auth: "api_key", resource: agentTest },
  { method: "GET", path: "/v1/agents/:id/test-runs", auth: "api_key", resource: agent },
  { method: "GET", path: "/v1/agents/:id/test-runs/:runId", auth: "api_key", resource: agentTestRun },
  // The call named is missing in every workspace: the agent's tenancy answers first (a foreign call is tested in test/integration/agent-tests/replays.test.ts).
  {
    method: "POST",
    path: "/v1/agents/:id/replays",
    auth: "api_key",
    body: { callId: "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b78" },
    resource: agent,
  },

  { method: "POST", path: "/v1/agents/:id/calls", auth: "api_key", body: { phoneNumber: "+12025550100" }, resource: agent },
  { method: "POST", path: "/v1/agents/:id/web-call", auth: "api_key", body: {}, resource: agent },
  { method: "GET", path: "/v1/calls", auth: "api_key" },
  { method: "GET", path: "/v1/calls/:id", auth: "api_key", resource: webCall },
  { method: "GET", path: "/v1/calls/:id/recording", auth: "api_key", resource: webCall },
  { method: "POST", path: "/v1/calls/:id/end", auth: "api_key", resource: webCall },
  { method: "GET", path: "/v1/phone-numbers", auth: "api_key" },
  { method: "POST", path: "/v1/phone-numbers", auth: "api_key", body: { number: "+15005550006" } },
  { method: "PATCH", path: "/v1/phone-numbers/:id", auth: "api_key", body: { label: "Renamed" }, resource: phoneNumber },
  { method: "DELETE", path: "/v1/phone-numbers/:id", auth: "api_key", resource: phoneNumber },

  { method: "GET", path: "/v1/voices", auth: "api_key" },
  {
    method: "POST",
    path: "/v1/voices",
    auth: "api_key",
    body: { name: "Security check", provider: "sandbox", providerVoiceId: "s-1", language: "en" },
  },
  { method: "GET", path: "/v1/voices/:id", auth: "api_key", resource: voice },
  { method: "PATCH", path: "/v1/voices/:id", auth: "api_key", body: { name: "Renamed" }, resource: voice },
  { method: "DELETE", path: "/v1/voices/:id", auth: "api_key", resource: voice },

  { method: "GET", path: "/v1/knowledge-bases", auth: "api_key" },
  { method: "POST", path: "/v1/knowledge-bases", auth: "api_key", body: { name: "Security check" } },
  { method: "GET", path: "/v1/knowledge-bases/:id", auth: "api_key", resource: knowledgeBase },
  { method: "PATCH", path: "/v1/knowledge-bases/:id", auth: "api_key", body: { name: "Renamed" }, resource: knowledgeBase },
  { method: "DELETE", path: "/v1/knowledge-bases/:id", auth: "api_key", resource: knowledgeBase },
  { method: "GET", path: "/v1/knowledge-bases/:id/documents", auth: "api_key", resource: knowledgeBase },
  {
    method: "POST",
    path: "/v1/knowledge-bases/:id/documents",
    auth: "api_key",
    body: { type: "text", name: "Security check", text: "Checked." },
    resource: knowledgeBase,
  },
  { method: "GET", path: "/v1/knowledge-bases/:id/documents/:documentId", auth: "api_key", resource: knowledgeDocument },
  { method: "DELETE", path: "/v1/knowledge-bases/:id/documents/:documentId", auth: "api_key", resource: knowledgeDocument },
  { method: "POST", path: "/v1/knowledge-bases/:id/query", auth: "api_key", body: { query: "When do you open?" }, resource: knowledgeBase },

  { method: "GET", path: "/v1/channels", auth: "api_key" },
  {
    method: "POST",
    path: "/v1/channels",
    auth: "api_key",
    body: { type: "telegram", name: "Bot", agentId: PERSONA, credentials: { botToken: "123456:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" } },
  },
  { method: "GET", path: "/v1/channels/:id", auth: "api_key", resource: channel },
  { method: "PATCH", path: "/v1/channels/:id", auth: "api_key", body: { name: "Renamed" }, resource: channel },
  { method: "DELETE", path: "/v1/channels/:id", auth: "api_key", resource: channel },
  { method: "POST", path: "/v1/channels/:id/test", auth: "api_key", resource: channel },
  { method: "GET", path: "/v1/widgets", auth: "api_key" },
  {
    method: "POST",
    path: "/v1/widgets",
    auth: "api_key",
    body: { agentId: PERSONA, name: "Security check", allowedOrigins: ["https://example.com"] },
  },
  { method: "GET", path: "/v1/widgets/:id", auth: "api_key", resource: widget },
  { method: "PATCH", path: "/v1/widgets/:id", auth: "api_key", body: { name: "Renamed" }, resource: widget },
  { method: "DELETE", path: "/v1/widgets/:id", auth: "api_key", resource: widget },
  { method: "POST", path: "/v1/widgets/:id/rotate-token", auth: "api_key", resource: widget },
  { method: "POST", path: "/v1/widgets/:id/revoke", auth: "api_key", resource: widget },

  { method: "GET", path: "/v1/chats", auth: "api_key" },
  { method: "GET", path: "/v1/chats/:id", auth: "api_key", resource: widgetChatSession },

  { method: "POST", path: "/v1/llm/chat", auth: "api_key", body: CHAT_BODY },
  { method: "POST", path: "/v1/chat/completions", auth: "api_key", body: CHAT_BODY },
  { method: "POST", path: "/v1/tts", auth: "api_key", body: { text: "Hello.", voiceId: SYSTEM_VOICE } },
  { method: "POST", path: "/v1/audio/speech", auth: "api_key", body: { model: "tts-1", input: "Hello.", voice: "alloy" } },
  { method: "POST", path: "/v1/stt", auth: "api_key", form: audioForm },
  { method: "POST", path: "/v1/audio/transcriptions", auth: "api_key", form: () => withModel(audioForm()) },
  { method: "GET", path: "/v1/usage", auth: "api_key" },
  { method: "GET", path: "/v1/concurrency", auth: "api_key" },
  { method: "GET", path: "/v1/campaigns", auth: "api_key" },
  {
    method: "POST",
    path: "/v1/campaigns",
    auth: "api_key",
    // Another workspace's agent is refused like a missing one (400): the body is valid in form.
    body: { name: "Security check", agentId: PERSONA, fromNumbers: [SHARED_NUMBER], recipients: [{ phoneNumber: "+14155550100" }] },
  },
  { method: "GET", path: "/v1/campaigns/:id", auth: "api_key", resource: campaign },
  { method: "PATCH", path: "/v1/campaigns/:id", auth: "api_key", body: { name: "Renamed" }, resource: campaign },
  { method: "DELETE", path: "/v1/campaigns/:id", auth: "api_key", resource: campaign },
  { method: "GET", path: "/v1/campaigns/:id/recipients", auth: "api_key", resource: campaign },
  { method: "POST", path: "/v1/campaigns/:id/start", auth: "api_key", resource: campaign },
  { method: "POST", path: "/v1/campaigns/:id/pause", auth: "api_key", resource: campaign },
  { method: "POST", path: "/v1/campaigns/:id/resume", auth: "api_key", resource: campaign },
  { method: "POST", path: "/v1/campaigns/:id/cancel", auth: "api_key", resource: campaign },

  ...webhookRoutes("/v1/webhook-endpoints", "api_key"),
  { method: "GET", path: "/webhooks/:id/deliveries", auth: "api_key", permission: "settings:read", resource: endpoint },

  { method: "POST", path: "/dashboard/api/sign-out", auth: "session" },
  { method: "GET", path: "/dashboard/api/session", auth: "session" },
  { method: "GET", path: "/dashboard/api/api-keys", auth: "session", permission: "settings:read" },
  { method: "POST", path: "/dashboard/api/api-keys", auth: "session", permission: "settings:write", body: { name: "k" } },
  {
    method: "POST",
    path: "/dashboard/api/api-keys/:id/revoke",
    auth: "session",
    permission: "settings:write",
    resource: async (ws) => ({ id: ws.apiKeyId }),
  },
  ...webhookRoutes("/dashboard/api/webhook-endpoints", "session"),
  {
    method: "GET",
    path: "/dashboard/api/webhook-endpoints/:id/deliveries",
    auth: "session",
    permission: "settings:read",
    resource: endpoint,
  },
  { method: "GET", path: "/dashboard/api/usage", auth: "session" },

  // Dashboard pages (HTML). Sign-in is public; the rest need the session cookie.
  { method: "GET", path: "/dashboard/sign-in", auth: "public", why: "the sign-in form; no data" },
  {
    method: "POST",
    path: "/dashboard/sign-in",
    auth: "public",
    why: "exchanges email+password for a session cookie (rate-limited like /dashboard/api/sign-in); reveals nothing on failure",
  },
  { method: "GET", path: "/dashboard", auth: "page" },
  { method: "POST", path: "/dashboard/sign-out", auth: "page" },
  { method: "POST", path: "/dashboard/switch-org", auth: "page" },
  { method: "GET", path: "/dashboard/members", auth: "page" },
  {
    method: "POST",
    path: "/dashboard/members",
    auth: "page",
    permission: "settings:write",
    fields: { email: "x@example.test", role: "member" },
  },
  {
    method: "POST",
    path: "/dashboard/members/:userId/role",
    auth: "page",
    permission: "settings:write",
    fields: { role: "member" },
    resource: async (ws) => ({ userId: (await addMemberTo(ws, "member")).userId }),
  },
  { method: "GET", path: "/dashboard/api-keys", auth: "page", permission: "settings:read" },
  { method: "POST", path: "/dashboard/api-keys", auth: "page", permission: "settings:write", fields: { name: "k" } },
  {
    method: "POST",
    path: "/dashboard/api-keys/:id/revoke",
    auth: "page",
    permission: "settings:write",
    resource: async (ws) => ({ id: ws.apiKeyId }),
  },
  // -- dashboard pages: agents, voices, calls, usage --
  { method: "GET", path: "/dashboard/agents", auth: "page" },
  { method: "GET", path: "/dashboard/agents/new", auth: "page" },
  { method: "POST", path: "/dashboard/agents", auth: "page", fields: { name: "Page agent", personaId: PERSONA } },
  { method: "GET", path: "/dashboard/agents/:id", auth: "page", resource: agent },
  { method: "POST", path: "/dashboard/agents/:id", auth: "page", fields: { name: "Renamed", personaId: PERSONA }, resource: agent },
  { method: "POST", path: "/dashboard/agents/:id/delete", auth: "page", resource: agent },
  { method: "POST", path: "/dashboard/agents/:id/web-call", auth: "page", resource: agent },
  { method: "POST", path: "/dashboard/agents/:id/rotate-tool-secret", auth: "page", resource: agent },
  {
    method: "POST",
    path: "/dashboard/agents/:id/tools",
    auth: "page",
    fields: {
      toolName: "lookup_order",
      toolDescription: "Looks up an order.",
      toolUrl: "https://example.com/tools/order",
      toolTimeout: "10",
    },
    resource: agent,
  },
  { method: "POST", path: "/dashboard/agents/:id/publish", auth: "page", fields: { version: "1" }, resource: agent },
  { method: "POST", path: "/dashboard/agents/:id/rollback", auth: "page", fields: { version: "1" }, resource: agent },
  { method: "GET", path: "/dashboard/agents/:id/versions/diff", auth: "page", resource: agentWithDraft },
  { method: "POST", path: "/dashboard/agents/:id/tools/remove", auth: "page", fields: { name: "lookup_order" }, resource: agent },
  {
    method: "POST",
    path: "/dashboard/agents/:id/chat",
    auth: "page",
    fields: { conversationId: "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77", message: "Hello", history: "[]" },
    resource: agent,
  },
  // the agent's Tests page (`live` is its script's JSON) and a run's page
  { method: "GET", path: "/dashboard/agents/:id/tests", auth: "page", resource: agentTest },
  { method: "GET", path: "/dashboard/agents/:id/tests/live", auth: "page", resource: agentTestRun },
  {
    method: "POST",
    path: "/dashboard/agents/:id/tests",
    auth: "page",
    fields: { name: "Page test", kind: "script", turns: "Hello", criteria: "" },
    resource: agent,
  },
  { method: "POST", path: "/dashboard/agents/:id/tests/run", auth: "page", fields: { version: "" }, resource: agentTest },
  { method: "POST", path: "/dashboard/agents/:id/tests/:testId/run", auth: "page", fields: { version: "" }, resource: agentTest },
  { method: "POST", path: "/dashboard/agents/:id/tests/:testId/delete", auth: "page", resource: agentTest },
  // a test's own page (every field) and its save
  { method: "GET", path: "/dashboard/agents/:id/tests/:testId", auth: "page", resource: agentTest },
  {
    method: "POST",
    path: "/dashboard/agents/:id/tests/:testId",
    auth: "page",
    fields: { name: "Renamed test", kind: "script", turns: "Hello", criteria: "", "expectTool.0": "", "expectCalled.0": "yes" },
    resource: agentTest,
  },
  { method: "GET", path: "/dashboard/agents/:id/test-runs/:runId", auth: "page", resource: agentTestRun },
  { method: "GET", path: "/dashboard/agents/:id/test-runs/:runId/live", auth: "page", resource: agentTestRun },
  { method: "GET", path: "/dashboard/voices", auth: "page" },
  { method: "GET", path: "/dashboard/voices/new", auth: "page" },
  {
    method: "POST",
    path: "/dashboard/voices",
    auth: "page",
    fields: { name: "Page voice", provider: "sandbox", providerVoiceId: "s-1", language: "en" },
  },
  { method: "GET", path: "/dashboard/voices/:id", auth: "page", resource: voice },
  { method: "GET", path: "/dashboard/voices/:id/sample", auth: "page", resource: voice },
  {
    method: "POST",
    path: "/dashboard/voices/:id",
    auth: "page",
    fields: { name: "Renamed", provider: "sandbox", providerVoiceId: "s-1", language: "en" },
    resource: voice,
  },
  { method: "POST", path: "/dashboard/voices/:id/delete", auth: "page", resource: voice },
  // -- dashboard pages: knowledge bases (everyone); `live` is the page script's JSON --
  { method: "GET", path: "/dashboard/knowledge", auth: "page" },
  { method: "POST", path: "/dashboard/knowledge", auth: "page", fields: { name: "Page knowledge" } },
  // (an empty one: a document would meter embeddings, which the every-page suite's usage charts do not expect; the
  // Chromium suite of the screen, knowledge-browser.test.ts, runs axe on the page with documents)
  { method: "GET", path: "/dashboard/knowledge/:id", auth: "page", resource: knowledgeBase },
  { method: "POST", path: "/dashboard/knowledge/:id", auth: "page", fields: { name: "Renamed" }, resource: knowledgeBase },
  { method: "POST", path: "/dashboard/knowledge/:id/delete", auth: "page", resource: knowledgeBase },
  { method: "GET", path: "/dashboard/knowledge/:id/live", auth: "page", resource: knowledgeDocument },
  {
    method: "POST",
    path: "/dashboard/knowledge/:id/documents",
    auth: "page",
    fields: { type: "text", textName: "Hours", text: "We open at nine." },
    resource: knowledgeBase,
  },
  { method: "POST", path: "/dashboard/knowledge/:id/documents/:documentId/delete", auth: "page", resource: knowledgeDocument },
  {
    method: "POST",
    path: "/dashboard/knowledge/:id/query",
    auth: "page",
    fields: { query: "When do you open?" },
    resource: knowledgeDocument,
  },
  // -- dashboard pages: campaigns (everyone); `live` is the page script's JSON --
  { method: "GET", path: "/dashboard/campaigns", auth: "page" },
  { method: "GET", path: "/dashboard/campaigns/new", auth: "page" },
  {
    method: "POST",
    path: "/dashboard/campaigns",
    auth: "page",
    fields: { name: "Page campaign", agentId: PERSONA, fromNumbers: SHARED_NUMBER, csvText: "phone_number\n+14155550100" },
  },
  { method: "GET", path: "/dashboard/campaigns/:id", auth: "page", resource: campaign },
  { method: "GET", path: "/dashboard/campaigns/:id/live", auth: "page", resource: campaign },
  { method: "POST", path: "/dashboard/campaigns/:id/start", auth: "page", resource: campaign },
  { method: "POST", path: "/dashboard/campaigns/:id/pause", auth: "page", resource: campaign },
  { method: "POST", path: "/dashboard/campaigns/:id/resume", auth: "page", resource: campaign },
  { method: "POST", path: "/dashboard/campaigns/:id/cancel", auth: "page", resource: campaign },
  { method: "POST", path: "/dashboard/campaigns/:id/delete", auth: "page", resource: campaign },
  { method: "GET", path: "/dashboard/calls", auth: "page" },
  { method: "POST", path: "/dashboard/calls/test", auth: "page", fields: { agentId: PERSONA, phoneNumber: "+12025550101" } },
  { method: "GET", path: "/dashboard/calls/:id", auth: "page", resource: webCall },
  { method: "POST", path: "/dashboard/calls/:id/hang-up", auth: "page", resource: webCall },
  // (a web call never joined has no caller turn: the workspace's own POST is refused on the call's page, 400)
  { method: "POST", path: "/dashboard/calls/:id/replay", auth: "page", fields: { version: "" }, resource: webCall },
  { method: "GET", path: "/dashboard/calls/export.csv", auth: "page" },
  { method: "GET", path: "/dashboard/phone-numbers", auth: "page" },
  {
    method: "POST",
    path: "/dashboard/phone-numbers",
    auth: "page",
    permission: "settings:write",
    fields: { number: "+15005550006", label: "Main", agentId: "" },
  },
  {
    method: "POST",
    path: "/dashboard/phone-numbers/:id",
    auth: "page",
    permission: "settings:write",
    fields: { agentId: "" },
    resource: phoneNumber,
  },
  { method: "POST", path: "/dashboard/phone-numbers/:id/remove", auth: "page", permission: "settings:write", resource: phoneNumber },
  { method: "GET", path: "/dashboard/calls/:id/live", auth: "page", resource: webCall },
  { method: "GET", path: "/dashboard/calls/:id/recording", auth: "page", resource: webCall },
  { method: "GET", path: "/dashboard/usage", auth: "page" },
  // -- dashboard pages: webhooks --
  { method: "GET", path: "/dashboard/webhooks", auth: "page", permission: "settings:read" },
  { method: "GET", path: "/dashboard/webhooks/new", auth: "page", permission: "settings:read" },
  { method: "POST", path: "/dashboard/webhooks", auth: "page", permission: "settings:write", fields: PAGE_ENDPOINT_FIELDS },
  { method: "GET", path: "/dashboard/webhooks/:id", auth: "page", permission: "settings:read", resource: endpoint },
  {
    method: "POST",
    path: "/dashboard/webhooks/:id",
    auth: "page",
    permission: "settings:write",
    fields: PAGE_ENDPOINT_FIELDS,
    resource: endpoint,
  },
  {
    method: "POST",
    path: "/dashboard/webhooks/:id/toggle",
    auth: "page",
    permission: "settings:write",
    fields: { active: "false" },
    resource: endpoint,
  },
  {
    method: "POST",
    path: "/dashboard/webhooks/:id/test",
    auth: "page",
    permission: "settings:write",
    fields: { event: "widget.started" },
    resource: endpoint,
  },
  { method: "POST", path: "/dashboard/webhooks/:id/rotate-secret", auth: "page", permission: "settings:write", resource: endpoint },
  { method: "POST", path: "/dashboard/webhooks/:id/delete", auth: "page", permission: "settings:write", resource: endpoint },
  {
    method: "POST",
    path: "/dashboard/webhooks/:id/deliveries/:deliveryId/resend",
    auth: "page",
    permission: "settings:write",
    resource: delivery,
  },
  // -- dashboard pages: widgets --
  { method: "GET", path: "/dashboard/widgets", auth: "page" },
  { method: "GET", path: "/dashboard/widgets/new", auth: "page" },
  {
    method: "POST",
    path: "/dashboard/widgets",
    auth: "page",
    fields: { name: "w", agentId: PERSONA, allowedOrigins: "https://example.com" },
  },
  { method: "GET", path: "/dashboard/widgets/:id", auth: "page", resource: widget },
  { method: "POST", path: "/dashboard/widgets/:id", auth: "page", fields: { name: "renamed" }, resource: widget },
  { method: "POST", path: "/dashboard/widgets/:id/rotate-token", auth: "page", resource: widget },
  { method: "POST", path: "/dashboard/widgets/:id/revoke", auth: "page", resource: widget },
  { method: "POST", path: "/dashboard/widgets/:id/delete", auth: "page", resource: widget },
  // -- dashboard pages: messaging channels (admins change, everyone looks) and chats --
  { method: "GET", path: "/dashboard/channels", auth: "page" },
  { method: "GET", path: "/dashboard/channels/new", auth: "page", permission: "settings:read" },
  { method: "POST", path: "/dashboard/channels", auth: "page", permission: "settings:write", fields: PAGE_CHANNEL_FIELDS },
  { method: "GET", path: "/dashboard/channels/:id", auth: "page", resource: channel },
  {
    method: "POST",
    path: "/dashboard/channels/:id",
    auth: "page",
    permission: "settings:write",
    fields: { name: "Renamed" },
    resource: channel,
  },
  { method: "POST", path: "/dashboard/channels/:id/test", auth: "page", permission: "settings:write", resource: channel },
  {
    method: "POST",
    path: "/dashboard/channels/:id/status",
    auth: "page",
    permission: "settings:write",
    fields: { status: "paused" },
    resource: channel,
  },
  { method: "GET", path: "/dashboard/channels/:id/remove", auth: "page", permission: "settings:read", resource: channel },
  { method: "POST", path: "/dashboard/channels/:id/remove", auth: "page", permission: "settings:write", resource: channel },
  { method: "GET", path: "/dashboard/chats", auth: "page" },
  { method: "GET", path: "/dashboard/chats/:id", auth: "page", resource: widgetChatSession },
  // (the chat has a user turn: the workspace's own POST starts a replay and opens its page)
  { method: "POST", path: "/dashboard/chats/:id/replay", auth: "page", fields: { version: "" }, resource: widgetChatSession },
];
