// The dashboard: its JSON routes (/dashboard/api, ./api) and its server-rendered pages
// (/dashboard), one folder per screen: the screen's routes apart from its views, built from the
// UI kit (./ui). Pages are guarded by middleware on each screen's router or route (./routers);
// every page response gets the frame (./frame: CSP, no-store, errors as pages).
import type { OpenAPIHono } from "@hono/zod-openapi";
import { type AppEnv, createRouter } from "../context";
import { agentPages } from "./agents/routes";
import { apiKeyPages } from "./api-keys/routes";
import { authPages } from "./auth/routes";
import { callPages } from "./calls/routes";
import { channelPages } from "./channels/routes";
import { chatPages } from "./chats/routes";
import { homePages } from "./home/routes";
import { memberPages } from "./members/routes";
import { usagePages } from "./usage/routes";
import { voicePages } from "./voices/routes";
import { webhookPages } from "./webhooks/routes";
import { widgetPages } from "./widgets/routes";

export { dashboardApi } from "../routes/dashboard-api";
export { dashboardPageFrame, pageFrame } from "./frame";

/** Every page, by the path under /dashboard where its screen lives. */
export function dashboardPages(): OpenAPIHono<AppEnv> {
  const pages = createRouter();
  pages.route("/", homePages()); // /dashboard
  pages.route("/", authPages()); // /dashboard/sign-in, /sign-out, /switch-org
  pages.route("/members", memberPages());
  pages.route("/api-keys", apiKeyPages());
  pages.route("/webhooks", webhookPages());
  pages.route("/agents", agentPages());
  pages.route("/voices", voicePages());
  pages.route("/calls", callPages());
  pages.route("/usage", usagePages());
  pages.route("/widgets", widgetPages());
  pages.route("/channels", channelPages());
  pages.route("/chats", chatPages());
  return pages;
}
