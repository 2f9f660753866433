/** @jsxImportSource hono/jsx */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context";

export function registerWebhookPages(_app: OpenAPIHono<AppEnv>): void {}
