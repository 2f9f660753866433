// /v1/phone-numbers: the workspace's caller ids and the agent each inbound number goes to
// (docs/calls.md, "Caller ids" and "Inbound calls"), one file per operation.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { registerCreatePhoneNumber } from "./create";
import { registerDeletePhoneNumber } from "./delete";
import { registerListPhoneNumbers } from "./list";
import { registerUpdatePhoneNumber } from "./update";

export function registerPhoneNumbers(app: OpenAPIHono<AppEnv>): void {
  registerListPhoneNumbers(app);
  registerCreatePhoneNumber(app);
  registerUpdatePhoneNumber(app);
  registerDeletePhoneNumber(app);
}
