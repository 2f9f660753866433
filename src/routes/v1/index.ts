import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context";
import { registerGetMe } from "./me/get";

/** Every /v1 operation, one file each, registered here. */
export function registerV1(app: OpenAPIHono<AppEnv>): void {
  registerGetMe(app);
}
