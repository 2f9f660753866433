import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { deleteVoice } from "../../../voices/service";
import { inPageWords } from "./shared";

/** POST /dashboard/voices/:id/delete. */
export const registerDeleteVoicePage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/:id/delete", async (c) => {
    await inPageWords(deleteVoice({ ctx: { ...c.var.ctx, samples: c.env.RECORDINGS }, input: { id: c.req.param("id") } }));
    return c.redirect("/dashboard/voices?deleted=1", 303);
  });
