// Where the widgets row (drizzle) and the API shape (zod) meet; nowhere else.
import type { Widget } from "../db/schema";
import type { WidgetView } from "./schema";

/** The embed code: the one tag a page needs (spec: What the service does 6). */
export const embedCode = (cdnOrigin: string, token: string) =>
  `<script src="${cdnOrigin.replace(/\/$/, "")}/widget.js" data-service-token="${token}" async></script>`;

export const toWidgetView = (row: Widget, cdnOrigin: string): WidgetView => ({
  id: row.id,
  agentId: row.agentId,
  agentVersion: row.agentVersion,
  name: row.name,
  mode: row.mode,
  allowedOrigins: row.allowedOrigins,
  title: row.title,
  greeting: row.greeting,
  colors: row.colors,
  position: row.position,
  status: row.revokedAt ? "revoked" : "active",
  token: row.token,
  embedCode: embedCode(cdnOrigin, row.token),
  tokenRotatedAt: row.tokenRotatedAt?.toISOString() ?? null,
  revokedAt: row.revokedAt?.toISOString() ?? null,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});
