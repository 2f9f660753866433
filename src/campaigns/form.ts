// A campaign created with a CSV upload: multipart/form-data with the campaign as JSON in the field
// `campaign` (every field of the JSON body but `recipients`) and the file in the field `csv`. Read
// into what createCampaign takes; the file's bytes are decoded and checked by recipients.ts.
import { readMultipart } from "../lib/body";
import { invalidInput } from "../lib/errors";
import { createCampaignFieldsSchema } from "./schema";
import type { CreateCampaignInput } from "./service";

export async function readCampaignForm(request: Request): Promise<CreateCampaignInput> {
  const form = await readMultipart(request, "the campaign as JSON in `campaign` and the CSV file in `csv`");
  const csv = form.get("csv") as unknown as File | string | null;
  const fields = form.get("campaign");
  const missing: Array<{ path: string[]; message: string }> = [];
  if (typeof fields !== "string")
    missing.push({ path: ["campaign"], message: "send the campaign's fields as JSON text in the field `campaign`" });
  if (csv === null) missing.push({ path: ["csv"], message: "send the recipients as a CSV file in the field `csv`" });
  if (missing.length > 0) throw invalidInput("form", missing);
  let parsed: unknown;
  try {
    parsed = JSON.parse(fields as string);
  } catch {
    throw invalidInput("form", [{ path: ["campaign"], message: "is not valid JSON" }]);
  }
  const checked = createCampaignFieldsSchema.safeParse(parsed);
  if (!checked.success)
    throw invalidInput(
      "form",
      checked.error.issues.map((i) => ({ path: ["campaign", ...i.path], message: i.message })),
    );
  // A file, or the CSV pasted as text (a form's textarea): the same bytes either way.
  const bytes = typeof csv === "string" ? new TextEncoder().encode(csv) : new Uint8Array(await (csv as File).arrayBuffer());
  return { ...checked.data, csv: bytes };
}
