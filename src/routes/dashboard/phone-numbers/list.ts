import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { renderNumbers } from "./shared";

const NOTICES: Record<string, string> = { added: "Number added.", saved: "Number saved.", removed: "Number removed." };

/** GET /dashboard/phone-numbers: the workspace's numbers, their agents, the shared caller ids. */
export const registerListPhoneNumbersPage = (app: OpenAPIHono<AppEnv>) =>
  app.get("/", (c) => renderNumbers(c, { notice: NOTICES[c.req.query("notice") ?? ""] }));
