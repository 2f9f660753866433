// A campaign's recipients, paged: in the order of the upload (row 1 first), not newest first as
// other lists are: they were all created at once, and their ids (UUID v7, made in row order)
// ascend with their rows, so the cursor is the last id seen and the next page starts after it.
import { and, asc, eq, gt, lt, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client";
import { type CampaignRecipient, campaignRecipients, type RecipientState } from "../../db/schema";
import { ownedBy } from "../../db/tenancy";
import { decodeCursor, type Page, type PageParams, pageOf } from "../../lib/pagination";

export async function pageOfRecipients(
  db: Db,
  organizationId: string,
  campaignId: string,
  params: PageParams & { state?: RecipientState },
): Promise<Page<CampaignRecipient>> {
  const where: SQL[] = [ownedBy(campaignRecipients, organizationId), eq(campaignRecipients.campaignId, campaignId)];
  if (params.cursor) where.push(gt(campaignRecipients.id, decodeCursor(params.cursor)));
  if (params.createdAfter) where.push(gt(campaignRecipients.createdAt, new Date(params.createdAfter)));
  if (params.createdBefore) where.push(lt(campaignRecipients.createdAt, new Date(params.createdBefore)));
  if (params.state) where.push(eq(campaignRecipients.state, params.state));
  const rows = await db
    .select()
    .from(campaignRecipients)
    .where(and(...where))
    .orderBy(asc(campaignRecipients.id))
    .limit(params.limit + 1);
  return pageOf(rows, params.limit, (r) => r);
}
