// A page's script action (a form POST with the page's CSRF token, answered in JSON for the
// script that sent it): its refusals are the API's one error body too, not an HTML page, so the
// script can say what went wrong. The page frame renders only errors that were thrown.
import type { Context } from "hono";
import type { AppEnv } from "../context";
import { ApiError, errorResponse } from "../lib/errors";

export async function scriptAction(c: Context<AppEnv>, work: () => Promise<Response>): Promise<Response> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof ApiError) return errorResponse(c, err);
    throw err;
  }
}
