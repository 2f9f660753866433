// The dashboard's live preview of a widget (docs/widget.md, "The dashboard's preview"): the same
// widget.js and the same public routes, but the widget is named by id (`?preview=<id>`, no token)
// and the request is authorised by the dashboard's session instead of the widget's allowed
// origins, which stay the customer's own list (the dashboard's origin is never added to it):
// 1. the request comes from this service's own origin: its `Origin` is this worker's origin, or,
//    for a same-origin GET (which carries no Origin), `Sec-Fetch-Site: same-origin`; anything else
//    is 403 origin_not_allowed, so no other website can use the preview, whatever its origin;
// 2. the dashboard's session cookie (HttpOnly, SameSite=Lax: never sent on a cross-site request)
//    is a live session: else 401;
// 3. the widget belongs to one of that user's workspaces (revoked or not: the token is not what
//    authorises it): else 404, like a missing widget.
// Preview answers carry no CORS header (same-origin only), and a preflight is refused.
import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import type { AppEnv } from "../../context";
import type { Widget } from "../../db/schema";
import { ApiError } from "../../lib/errors";
import { isSessionShaped, resolveSession, SESSION_COOKIE } from "../../sessions/service";
import { findWidgetOfWorkspaces } from "../../widgets/service";

/** Whether the request comes from a page of this service's own origin (the dashboard). */
export function fromOwnOrigin(c: Context<AppEnv>): boolean {
  const origin = c.req.header("origin");
  if (origin !== undefined) return origin === new URL(c.req.url).origin;
  return c.req.header("sec-fetch-site") === "same-origin";
}

const notOwnOrigin = () =>
  new ApiError(
    "origin_not_allowed",
    "The widget preview works only on the dashboard's own pages (same origin, with the dashboard's session).",
  );

/** The widget the signed-in dashboard user previews, or the refusal (403, 401, 404; in that order). */
export async function previewWidget(c: Context<AppEnv>, id: string, preflight: boolean): Promise<Widget> {
  // A same-origin request is never preflighted: a preflight is another origin's.
  if (preflight || !fromOwnOrigin(c)) throw notOwnOrigin();
  const token = getCookie(c, SESSION_COOKIE) ?? "";
  const session = isSessionShaped(token) ? await resolveSession({ ctx: { db: c.var.db }, input: { token } }) : null;
  if (!session) throw new ApiError("unauthorized", "The widget preview needs the dashboard's session: sign in to the dashboard again.");
  const widget = await findWidgetOfWorkspaces({
    ctx: { db: c.var.db },
    input: { id, organizationIds: session.memberships.map((m) => m.organizationId) },
  });
  if (!widget) throw new ApiError("not_found", "No widget with that id in this workspace.");
  return widget;
}
