import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { createCampaignFieldsSchema } from "../../../campaigns/schema";
import { createCampaign } from "../../../campaigns/service";
import type { AppEnv } from "../../../context";
import {
  campaignFieldsOf,
  campaignValuesOf,
  csvTextOf,
  type NewCampaignValues,
  onFormFields,
  preErrors,
  splitIssues,
} from "../../../dashboard/campaigns/form";
import { validate } from "../../../dashboard/forms";
import { ApiError } from "../../../lib/errors";
import { BASE, renderNew } from "./shared";

/**
 * The recipients a form sent: the file chosen (multipart), else the text pasted; null for neither.
 * The body was read at the edge and its fields by the page session: the file is read from the
 * same bytes, as the knowledge page's upload is.
 */
async function csvOf(c: Context<AppEnv>, values: NewCampaignValues): Promise<Uint8Array | null> {
  const type = c.req.header("content-type") ?? "";
  if (type.toLowerCase().startsWith("multipart/form-data")) {
    const request = new Request(c.req.url, { method: "POST", headers: { "content-type": type }, body: await c.req.arrayBuffer() });
    const file = (await request.formData()).get("csv") as unknown as File | string | null;
    if (file && typeof file !== "string" && file.size > 0) return new Uint8Array(await file.arrayBuffer());
  }
  return values.csvText.trim() === "" ? null : new TextEncoder().encode(values.csvText);
}

/** "2 problems in all, in 2 recipient rows; nothing was created.": the service's count of every problem (only the first 100 are listed). */
const countOf = (message: string) => /\d[\d,]* problems? in all.*$/.exec(message)?.[0] ?? message;

/**
 * POST /dashboard/campaigns: a new draft campaign from the form, through the API's schema (the
 * multipart API's `campaign` fields) and createCampaign with the CSV's bytes, as POST /v1/campaigns
 * takes a CSV upload: every problem at once, nothing created unless all is valid. A refusal draws
 * the form again with what was typed, the campaign's problems on its fields, each recipient's in a
 * table, and the file's text in the form so its rows can be fixed in place.
 */
export const registerCreateCampaignPage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/", async (c) => {
    const { ctx, form } = c.var;
    const values = campaignValuesOf(form);
    const csv = await csvOf(c, values);
    const kept = { ...values, csvText: csv ? csvTextOf(csv) : values.csvText };
    const checked = validate(createCampaignFieldsSchema, campaignFieldsOf(values, form), preErrors(values));
    const errors = checked.ok ? {} : onFormFields(checked.errors);
    if (!csv) errors.csv ??= "choose a CSV file, or paste its rows below";
    if (!checked.ok || !csv) return renderNew(c, { values: kept, errors }, 400);
    try {
      const { campaign } = await createCampaign({ ctx, input: { ...checked.data, csv } });
      return c.redirect(`${BASE}/${campaign.id}?created=1`, 303);
    } catch (err) {
      // A version the agent does not have.
      if (err instanceof ApiError && err.code === "not_found")
        return renderNew(c, { values: kept, errors: { agentVersion: err.message } }, 400);
      if (!(err instanceof ApiError) || err.code !== "validation_failed") throw err;
      const split = splitIssues(err.issues ?? [{ path: "csv", message: err.message }], csv);
      return renderNew(c, { values: kept, errors: split.errors, refused: { rows: split.rows, message: countOf(err.message) } }, 400);
    }
  });
