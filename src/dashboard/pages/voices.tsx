/** @jsxImportSource hono/jsx */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context";

export function registerVoicePages(_app: OpenAPIHono<AppEnv>): void {}
