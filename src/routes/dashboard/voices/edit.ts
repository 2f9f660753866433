import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { valuesOf } from "../../../dashboard/voices/form";
import { ownVoice, renderForm } from "./shared";

/** GET /dashboard/voices/:id: an owned voice's form. */
export const registerEditVoicePage = (app: OpenAPIHono<AppEnv>) =>
  app.get("/:id", async (c) => {
    const voice = await ownVoice(c, c.req.param("id"));
    return renderForm(c, voice, valuesOf(voice), {}, 200, c.req.query("saved") ? "Voice saved." : undefined);
  });
