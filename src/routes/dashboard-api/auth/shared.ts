// What the dashboard's session operations share: the session's shape and its organizations.
import { z } from "@hono/zod-openapi";
import type { SessionMembership } from "../../../sessions/service";

export const sessionSchema = z
  .object({
    user: z.object({ id: z.string(), email: z.string() }),
    organizations: z.array(z.object({ id: z.string(), name: z.string(), role: z.enum(["admin", "member"]) })),
    expiresAt: z.string().optional(),
  })
  .openapi("DashboardSession");

export const organizationsOf = (memberships: SessionMembership[]) =>
  memberships.map((m) => ({ id: m.organizationId, name: m.organizationName, role: m.role }));
