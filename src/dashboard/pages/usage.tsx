/** @jsxImportSource hono/jsx */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context";

export function registerUsagePage(_app: OpenAPIHono<AppEnv>): void {}
