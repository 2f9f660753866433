import { APIClient, type ClientOptions } from "./core.js";
import { AgentTests } from "./resources/agent-tests.js";
import { Agents } from "./resources/agents.js";
import { Calls } from "./resources/calls.js";
import { Campaigns } from "./resources/campaigns.js";
import { Channels } from "./resources/channels.js";
import { Chats } from "./resources/chats.js";
import { ConcurrencyResource } from "./resources/concurrency.js";
import { KnowledgeBases } from "./resources/knowledge-bases.js";
import { Me } from "./resources/me.js";
import { Audio, ChatModels, Stt, Tts, UsageResource } from "./resources/models.js";
import { PhoneNumbers } from "./resources/phone-numbers.js";
import { Voices } from "./resources/voices.js";
import { WebhookEndpoints } from "./resources/webhook-endpoints.js";
import { Widgets } from "./resources/widgets.js";
import { tools } from "./tools.js";
import { webhooks } from "./webhooks.js";

/**
 * The platform's API client.
 *
 * ```ts
 * const client = new VoiceAgentPlatform({ apiKey: "sk-live-…", baseURL: "http://127.0.0.1:8787" });
 * const agent = await client.agents.create({ name: "Front desk", personaId });
 * for await (const a of client.agents.list({ limit: 50 })) console.log(a.name);
 * ```
 */
export class VoiceAgentPlatform {
  readonly me: Me;
  readonly agents: Agents;
  readonly agentTests: AgentTests;
  readonly calls: Calls;
  readonly phoneNumbers: PhoneNumbers;
  readonly campaigns: Campaigns;
  readonly concurrency: ConcurrencyResource;
  readonly voices: Voices;
  readonly knowledgeBases: KnowledgeBases;
  readonly chats: Chats;
  readonly widgets: Widgets;
  readonly channels: Channels;
  readonly chat: ChatModels;
  readonly tts: Tts;
  readonly stt: Stt;
  readonly audio: Audio;
  readonly usage: UsageResource;
  readonly webhookEndpoints: WebhookEndpoints;
  /** constructEvent and signPayload (also exported on their own, and from `…/sdk/webhooks`). */
  readonly webhooks = webhooks;
  /** constructRequest, response and responseBody: serving the agents' tools (also from `…/sdk/tools`). */
  readonly tools = tools;
  /** The transport: base URL, retries, timeout. */
  readonly client: APIClient;

  constructor(options: ClientOptions) {
    const client = new APIClient(options);
    this.client = client;
    this.me = new Me(client);
    this.agents = new Agents(client);
    this.agentTests = new AgentTests(client);
    this.calls = new Calls(client);
    this.phoneNumbers = new PhoneNumbers(client);
    this.campaigns = new Campaigns(client);
    this.concurrency = new ConcurrencyResource(client);
    this.voices = new Voices(client);
    this.knowledgeBases = new KnowledgeBases(client);
    this.chats = new Chats(client);
    this.widgets = new Widgets(client);
    this.channels = new Channels(client);
    this.chat = new ChatModels(client);
    this.tts = new Tts(client);
    this.stt = new Stt(client);
    this.audio = new Audio(client);
    this.usage = new UsageResource(client);
    this.webhookEndpoints = new WebhookEndpoints(client);
  }
}
