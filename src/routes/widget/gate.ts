// The gate of every public widget route (/widget/v1/*), in this order:
// 1. the per-address rate limit, before anything else: a burst of made-up (well-formed) tokens
//    from one address is answered 429 from Redis without reaching the database (per visitor
//    and per widget are checked by the routes, after the body names the visitor);
// 2. the widget token (`?token=`, from the script tag's data-service-token): unknown, malformed
//    or revoked is 401;
// 3. the page's `Origin` must be one of the widget's allowed origins: otherwise 403
//    origin_not_allowed (no Origin at all is refused too: the widget always runs in a page);
// 4. CORS: the allowed origin is echoed (never `*` for an answer with data); a preflight is
//    answered 204 only for an allowed origin, and refused with our error body otherwise.
// The token sits in the URL, not a header, so that a preflight (which carries no custom header)
// can be checked too. It is public by design: what it guards is one widget's chat and voice
// starts, from its allowed origins, within its limits.
// The dashboard's live preview (`?preview=<widget id>` instead of a token) replaces steps 2 to 4
// with the dashboard session's checks (preview.ts): same origin only, no CORS.
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../../context";
import type { Widget } from "../../db/schema";
import { durationSeconds } from "../../env";
import { ApiError } from "../../lib/errors";
import { enforce } from "../../ratelimit/http";
import { originAllowed } from "../../widgets/origins";
import { findActiveWidget } from "../../widgets/service";
import { previewWidget } from "./preview";

// Keyed by the request's context (one per request, shared by middleware and handler); not by
// c.req.raw, which the body limit replaces for a chunked body.
const widgets = new WeakMap<Context<AppEnv>, Widget>();
/** The requests of the dashboard's preview (authorised by its session, not the token). */
const previews = new WeakSet<Context<AppEnv>>();

/** The widget the gate resolved for this request. */
export function widgetOf(c: Context<AppEnv>): Widget {
  const widget = widgets.get(c);
  if (!widget) throw new Error("widget routes must run behind the widget gate");
  return widget;
}

/** Whether this request is the dashboard's preview of the widget (preview.ts). */
export const isPreview = (c: Context<AppEnv>): boolean => previews.has(c);

const EXPOSED = "RateLimit, RateLimit-Policy, Retry-After, X-Request-Id";

/**
 * A refusal of a simple (non-preflight) request stays readable by the page, so the script can
 * say in the console why it stays quiet; the body names no data. A refused preflight gets no
 * CORS header: the browser then never sends the request.
 */
function readableRefusal(c: Context<AppEnv>, preflight: boolean) {
  if (preflight) return;
  c.header("Access-Control-Allow-Origin", "*");
  c.header("Access-Control-Expose-Headers", EXPOSED);
}

export const clientAddress = (c: Context<AppEnv>) => c.req.header("cf-connecting-ip") ?? "unknown";

export const widgetGate = createMiddleware<AppEnv>(async (c, next) => {
  const preflight = c.req.method === "OPTIONS";
  const origin = c.req.header("origin");
  const token = c.req.query("token") ?? "";
  const preview = c.req.query("preview");
  // Keyed by the address alone: the widget is not known yet, and must not be looked up first.
  const { config } = c.var;
  try {
    await enforce(
      c,
      {
        name: "widget-address",
        limit: config.WIDGET_RATE_LIMIT_ADDRESS,
        seconds: durationSeconds(config.WIDGET_RATE_LIMIT_WINDOW),
        prefix: "rl:widget:addr",
      },
      clientAddress(c),
    );
  } catch (err) {
    readableRefusal(c, preflight);
    throw err;
  }
  if (preview !== undefined) {
    // The dashboard's preview: its refusals carry no CORS header (it is same-origin only).
    widgets.set(c, await previewWidget(c, preview, preflight));
    previews.add(c);
    return next();
  }
  const widget = token ? await findActiveWidget({ ctx: c.var, input: { token } }) : null;
  if (!widget) {
    readableRefusal(c, preflight);
    throw new ApiError(
      "unauthorized",
      token
        ? "The widget token is invalid or has been revoked. Copy the embed code again from the widget's settings."
        : "Missing widget token: the script tag needs data-service-token.",
    );
  }
  if (!originAllowed(origin, widget.allowedOrigins)) {
    readableRefusal(c, preflight);
    throw new ApiError(
      "origin_not_allowed",
      origin
        ? `This page's origin (${origin.slice(0, 200)}) is not one of the widget's allowed origins. Add it in the widget's settings.`
        : "Widget requests must come from a web page (an Origin header) on one of the widget's allowed origins.",
    );
  }
  c.header("Access-Control-Allow-Origin", origin as string);
  c.header("Vary", "Origin");
  if (preflight) {
    c.header("Access-Control-Allow-Methods", "GET, POST, OPTIONS");
    c.header("Access-Control-Allow-Headers", "Content-Type");
    c.header("Access-Control-Max-Age", "600");
    return c.body(null, 204);
  }
  c.header("Access-Control-Expose-Headers", EXPOSED);
  widgets.set(c, widget);
  await next();
});

/** Per visitor (the widget's random id in this browser), then per widget: chat and voice starts cost LLM and speech. */
export async function limitVisitor(c: Context<AppEnv>, widget: Widget, visitorId: string, alsoWidget: boolean): Promise<void> {
  const { config } = c.var;
  const seconds = durationSeconds(config.WIDGET_RATE_LIMIT_WINDOW);
  await enforce(
    c,
    { name: "widget-visitor", limit: config.WIDGET_RATE_LIMIT_VISITOR, seconds, prefix: "rl:widget:visitor" },
    `${widget.id}:${visitorId}`,
  );
  if (alsoWidget) {
    await enforce(c, { name: "widget", limit: config.WIDGET_RATE_LIMIT_WIDGET, seconds, prefix: "rl:widget" }, widget.id);
  }
}
