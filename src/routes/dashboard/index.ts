// The dashboard's server-rendered pages (/dashboard): one router mounted at /dashboard (src/app.ts),
// a folder per screen, each with its router (index.ts: the screen's guards, then its operations in
// order), one file per page operation and the screen's shared helpers (shared.tsx). The views,
// forms, UI kit, page frame, session and guards they use are the dashboard's page kit, src/dashboard/.
// Pages are guarded by middleware on each screen's router or route (src/dashboard/routers.ts);
// every page response gets the frame (src/dashboard/frame.tsx: CSP, no-store, errors as pages),
// which src/app.ts puts before every /dashboard route. The dashboard's JSON is src/routes/dashboard-api.
import type { OpenAPIHono } from "@hono/zod-openapi";
import { type AppEnv, createRouter } from "../../context";
import { agentPages } from "./agents";
import { apiKeyPages } from "./api-keys";
import { authPages } from "./auth";
import { callPages } from "./calls";
import { campaignPages } from "./campaigns";
import { channelPages } from "./channels";
import { chatPages } from "./chats";
import { homePages } from "./home";
import { knowledgePages } from "./knowledge";
import { memberPages } from "./members";
import { phoneNumberPages } from "./phone-numbers";
import { usagePages } from "./usage";
import { voicePages } from "./voices";
import { webhookPages } from "./webhooks";
import { widgetPages } from "./widgets";

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
  pages.route("/knowledge", knowledgePages());
  pages.route("/phone-numbers", phoneNumberPages());
  pages.route("/calls", callPages());
  pages.route("/campaigns", campaignPages());
  pages.route("/usage", usagePages());
  pages.route("/widgets", widgetPages());
  pages.route("/channels", channelPages());
  pages.route("/chats", chatPages());
  return pages;
}
