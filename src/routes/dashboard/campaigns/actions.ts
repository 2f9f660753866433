// A campaign's page's buttons as one route each (start.ts, pause.ts…): the service's move, then the
// page with what happened; a move its status refuses (409: the service says what it allows) draws
// the page again with that sentence.
import type { Context } from "hono";
import type { AppEnv } from "../../../context";
import { ApiError } from "../../../lib/errors";
import { BASE, renderCampaign } from "./shared";

export async function campaignAction(c: Context<AppEnv>, move: (id: string) => Promise<unknown>, done: string): Promise<Response> {
  const id = c.req.param("id") ?? "";
  try {
    await move(id);
  } catch (err) {
    if (!(err instanceof ApiError) || err.code !== "conflict") throw err;
    return renderCampaign(c, id, { kind: "error", text: err.message }, 409);
  }
  return c.redirect(done === "deleted" ? `${BASE}?deleted=1` : `${BASE}/${id}?${done}=1`, 303);
}
