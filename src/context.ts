// The typed Hono environment shared by every route (unkey's pkg/hono/env.ts pattern).
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Db } from "./db/client";
import type { Role } from "./db/schema";
import type { AppConfig, Bindings } from "./env";
import { ApiError } from "./lib/errors";
import type { Services } from "./services";
import "./lib/zod-messages";

export type Permission = "settings:read" | "settings:write";

export interface AuthContext {
  type: "api_key" | "session";
  organizationId: string;
  role: Role;
  permissions: Permission[];
  user: { id: string; email: string } | null;
  apiKeyId?: string;
  sessionId?: string;
  /** Session auth only: every organization the user belongs to (oldest first), with its name. */
  memberships?: Array<{ organizationId: string; organizationName: string; role: Role }>;
}

export interface AppEnv {
  Bindings: Bindings;
  Variables: {
    requestId: string;
    config: AppConfig;
    /** Opened on first use in a request and closed after the response (ctx.waitUntil). */
    db: Db;
    /** Work to finish after the response (before the request's pool closes). */
    defer: (work: Promise<unknown>) => void;
    auth: AuthContext;
    /** What services need from the request (webhook deps, the public origin): src/services.ts. */
    services: Services;
  };
}

export const permissionsFor = (role: Role): Permission[] => (role === "admin" ? ["settings:read", "settings:write"] : []);

/** A router whose validation failures leave through the one error body. */
export function createRouter(): OpenAPIHono<AppEnv> {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) {
        const issues = result.error.issues.map((issue) => {
          const path = issue.path.map(String).join(".");
          return { path: path || "(root)", message: issue.message };
        });
        const first = issues[0];
        const summary = first ? `${first.path}: ${first.message}` : "The request is invalid.";
        throw new ApiError("validation_failed", `Invalid ${result.target}: ${summary}`, { issues });
      }
    },
  });
}
