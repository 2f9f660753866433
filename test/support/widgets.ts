// Helpers for the widget tests: widgets through the API, and the public routes called as the
// embedded script calls them (token in the query, the page's Origin header).
import type { WidgetView } from "../../src/widgets/schema";
import { createAgent } from "./calls";
import { baseUrl, json, type Workspace } from "./harness";

export const SITE = "https://shop.example.test";

export async function createWidget(ws: Workspace, body: Record<string, unknown> = {}): Promise<WidgetView & { agentId: string }> {
  const agentId = (body.agentId as string | undefined) ?? (await createAgent(ws)).id;
  const res = await ws.api("/v1/widgets", { method: "POST", json: { name: "Site widget", allowedOrigins: [SITE], ...body, agentId } });
  if (res.status !== 201) throw new Error(`create widget: ${res.status} ${await res.text()}`);
  return json<WidgetView>(res);
}

export interface PublicCall {
  token?: string | null;
  origin?: string | null;
  method?: string;
  json?: unknown;
  body?: string;
  headers?: Record<string, string>;
  base?: string;
}

/** A request to a public widget route, as the script sends it from a page on `origin`. */
export function widgetRequest(path: string, call: PublicCall = {}): Promise<Response> {
  const url = new URL(`${call.base ?? baseUrl()}${path}`);
  if (call.token) url.searchParams.set("token", call.token);
  const headers = new Headers(call.headers);
  if (call.origin !== null) headers.set("origin", call.origin ?? SITE);
  let body: string | undefined = call.body;
  if (call.json !== undefined) {
    headers.set("content-type", "application/json");
    body = JSON.stringify(call.json);
  }
  return fetch(url, { method: call.method ?? (body === undefined ? "GET" : "POST"), headers, body });
}

export const visitor = () => `v_${crypto.randomUUID().replace(/-/g, "")}`;

export interface ChatReply {
  sessionId: string;
  started: boolean;
  reply: { role: string; text: string };
}

export async function chat(token: string, body: { visitorId: string; sessionId?: string | null; message: string }): Promise<ChatReply> {
  const res = await widgetRequest("/widget/v1/chat", { token, json: body });
  if (res.status !== 200) throw new Error(`chat: ${res.status} ${await res.text()}`);
  return json<ChatReply>(res);
}
