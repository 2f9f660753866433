import type { Context } from "hono";
import type { AppEnv } from "../../../context";
import { publicOrigin } from "../../../webhooks/endpoints";

/** Where widget.js is served: WIDGET_CDN_URL, else PUBLIC_BASE_URL, else this request's origin (the same worker serves it). */
export const cdnOrigin = (c: Context<AppEnv>) => c.var.config.WIDGET_CDN_URL ?? publicOrigin(c.var.config, new URL(c.req.url).origin);
