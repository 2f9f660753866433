/** @jsxImportSource hono/jsx */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { shellOf } from "../../../dashboard/ui";
import { VoiceList } from "../../../dashboard/voices/views";
import { listVoicesByName } from "../../../voices/service";

/** GET /dashboard/voices: the workspace's own voices and the system catalog. */
export const registerListVoicesPage = (app: OpenAPIHono<AppEnv>) =>
  app.get("/", async (c) => {
    const shell = await shellOf(c, "Voices", "voices");
    const rows = await listVoicesByName({ ctx: c.var.ctx });
    const owned = rows.filter((v) => v.organizationId !== null);
    const system = rows.filter((v) => v.organizationId === null);
    return c.html(<VoiceList shell={shell} owned={owned} system={system} notice={c.req.query("deleted") ? "Voice deleted." : undefined} />);
  });
