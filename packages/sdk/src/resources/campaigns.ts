// Campaigns (docs/campaigns.md): batches of outbound calls. Created as a draft with their
// recipients (JSON rows, or a CSV file: `createFromCsv`), then started, paused, resumed or canceled;
// `recipients.list` pages through the rows with their state, attempts and latest call.
import type { RequestOptions } from "../core.js";
import type { PagePromise } from "../pagination.js";
import type {
  Campaign,
  CampaignCreateFields,
  CampaignCreateParams,
  CampaignListParams,
  CampaignRecipient,
  CampaignRecipientListParams,
  CampaignUpdateParams,
} from "../types.js";
import { toBlob, type Uploadable } from "./models.js";
import { Resource } from "./resource.js";

export class CampaignRecipients extends Resource {
  /** In upload order (row 1 first); `state` filters. */
  list(campaignId: string, query?: CampaignRecipientListParams, options?: RequestOptions): PagePromise<CampaignRecipient> {
    return this.page("listCampaignRecipients", query, options, { id: campaignId });
  }
}

export class Campaigns extends Resource {
  readonly recipients = new CampaignRecipients(this.client);

  /** A draft campaign with its recipients as JSON rows; every problem comes back at once (ValidationError's `issues`). */
  create(body: CampaignCreateParams, options?: RequestOptions): Promise<Campaign> {
    return this.call({ operation: "createCampaign", body }, options);
  }

  /**
   * A draft campaign with its recipients in a CSV file (UTF-8; a header row with `phone_number`,
   * optional `timezone`, every other column a variable), or CSV text.
   */
  createFromCsv(fields: CampaignCreateFields, csv: Uploadable | string, options?: RequestOptions): Promise<Campaign> {
    const form = new FormData();
    form.append("campaign", JSON.stringify(fields));
    form.append("csv", typeof csv === "string" ? new Blob([csv], { type: "text/csv" }) : toBlob(csv), "recipients.csv");
    return this.call({ operation: "createCampaign", form }, options);
  }

  retrieve(id: string, options?: RequestOptions): Promise<Campaign> {
    return this.call({ operation: "getCampaign", pathParams: { id } }, options);
  }

  update(id: string, body: CampaignUpdateParams, options?: RequestOptions): Promise<Campaign> {
    return this.call({ operation: "updateCampaign", pathParams: { id }, body }, options);
  }

  list(query?: CampaignListParams, options?: RequestOptions): PagePromise<Campaign> {
    return this.page("listCampaigns", query, options);
  }

  del(id: string, options?: RequestOptions): Promise<void> {
    return this.call({ operation: "deleteCampaign", pathParams: { id }, expect: "empty" }, options);
  }

  start(id: string, options?: RequestOptions): Promise<Campaign> {
    return this.call({ operation: "startCampaign", pathParams: { id } }, options);
  }

  pause(id: string, options?: RequestOptions): Promise<Campaign> {
    return this.call({ operation: "pauseCampaign", pathParams: { id } }, options);
  }

  resume(id: string, options?: RequestOptions): Promise<Campaign> {
    return this.call({ operation: "resumeCampaign", pathParams: { id } }, options);
  }

  cancel(id: string, options?: RequestOptions): Promise<Campaign> {
    return this.call({ operation: "cancelCampaign", pathParams: { id } }, options);
  }
}
