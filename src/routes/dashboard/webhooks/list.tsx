/** @jsxImportSource hono/jsx */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { shellOf } from "../../../dashboard/ui";
import { EndpointList } from "../../../dashboard/webhooks/list";
import { pageQuery } from "../../../db/pagination";
import { listEndpoints } from "../../../webhooks/endpoints";

const LIST_LIMIT = 50;

const LIST_NOTICES: Record<string, string> = { deleted: "Endpoint deleted.", on: "Endpoint turned on.", off: "Endpoint turned off." };

/** GET /dashboard/webhooks: the endpoint list, paged. */
export const registerListEndpointsPage = (app: OpenAPIHono<AppEnv>) =>
  app.get("/", async (c) => {
    const shell = await shellOf(c, "Webhooks", "webhooks");
    const page = await listEndpoints({ ctx: c.var.ctx, input: pageQuery({ limit: LIST_LIMIT, cursor: c.req.query("cursor") }) });
    const next = page.hasMore && page.nextCursor ? page.nextCursor : null;
    return c.html(<EndpointList shell={shell} endpoints={page.data} next={next} notice={LIST_NOTICES[c.req.query("notice") ?? ""]} />);
  });
