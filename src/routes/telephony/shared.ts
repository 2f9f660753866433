// What the telephony operations share: the path parameter, handing a socket to the call's
// Durable Object, and the refusals they have in common.
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { upgradeAtSession } from "../../calls/stub";
import type { AppEnv } from "../../context";
import { ApiError } from "../../lib/errors";

export function sessionNamespace(c: Context<AppEnv>): DurableObjectNamespace {
  const ns = c.env.CALL_SESSIONS;
  if (!ns) throw new ApiError("misconfigured", "The CALL_SESSIONS Durable Object binding is missing (wrangler.toml).");
  return ns;
}

/** Hands the upgrade to the call's Durable Object, which answers 101 with the socket. */
export async function toSession(c: Context<AppEnv>, callId: string, transport: "twilio" | "web"): Promise<Response> {
  const res = await upgradeAtSession(sessionNamespace(c), callId, transport, c.req.url, new Headers(c.req.raw.headers));
  // A response from a Durable Object has immutable headers; the middleware adds its own.
  return res.webSocket
    ? new Response(null, { status: 101, webSocket: res.webSocket, headers: res.headers })
    : new Response(res.body, { status: res.status, headers: res.headers });
}

export const requireUpgrade = (c: Context<AppEnv>) => {
  if (c.req.header("upgrade")?.toLowerCase() !== "websocket")
    throw new ApiError("upgrade_required", "This address takes a WebSocket upgrade (Upgrade: websocket).");
};

export const unknownCall = () => new ApiError("not_found", "No such call.");

export const callIdParam = z.object({
  callId: z.string().openapi({ param: { name: "callId", in: "path" }, description: "The call's id." }),
});
export const switching = { 101: { description: "Switching protocols: the WebSocket is open." } };
