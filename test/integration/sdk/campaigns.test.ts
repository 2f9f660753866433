// The SDK's campaigns and concurrency resources against the real worker: a campaign from JSON rows
// and one from a CSV file, its moves between states, its recipients paged, and the workspace's
// calls in flight. The API's own rules: test/integration/campaigns/.
import { describe, expect, it } from "vitest";
import { ConflictError, ValidationError } from "../../../packages/sdk/src/index";
import { campaignAgent, closedNow, recipients, SHARED_NUMBER } from "../../support/campaigns";
import { createWorkspace } from "../../support/harness";
import { sdkFor } from "../../support/sdk";

describe("SDK campaigns", () => {
  it("create, createFromCsv, retrieve, update, list, recipients.list, start, pause, resume, cancel, del; concurrency.retrieve", async () => {
    const ws = await createWorkspace();
    const client = sdkFor(ws);
    const agentId = await campaignAgent(ws);
    // Closed now: the runner that start and resume wake dials no one, so no call is in flight at the end.
    const fields = { name: "Reminders", agentId, fromNumbers: [SHARED_NUMBER], schedule: closedNow() };

    const campaign = await client.campaigns.create({ ...fields, recipients: recipients(3) });
    expect(campaign).toMatchObject({ status: "draft", recipientCount: 3, counts: { pending: 3 } });
    const fromCsv = await client.campaigns.createFromCsv(
      { ...fields, name: "From CSV" },
      "phone_number,first_name,appointment\n+14155550100,Ada,Monday\n+14155550101,Alan,Tuesday\n",
    );
    expect(fromCsv).toMatchObject({ name: "From CSV", recipientCount: 2 });
    const refused = await client.campaigns.createFromCsv(fields, "phone_number,first_name\n12345,Ada\n").catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ValidationError);
    expect((refused as ValidationError).issues?.map((i) => i.path)).toEqual([
      "recipients.0.phoneNumber",
      "recipients.0.variables.appointment",
    ]);

    expect((await client.campaigns.retrieve(campaign.id)).id).toBe(campaign.id);
    expect((await client.campaigns.update(campaign.id, { maxCallsInFlight: 2 })).maxCallsInFlight).toBe(2);
    const listed = await client.campaigns.list({ status: "draft" });
    expect(listed.data.map((c) => c.id)).toEqual([fromCsv.id, campaign.id]);
    const rows = await client.campaigns.recipients.list(campaign.id, { limit: 2 });
    expect(rows.data.map((r) => r.row)).toEqual([1, 2]);
    expect(rows.hasMore).toBe(true);

    expect((await client.campaigns.start(campaign.id)).status).toBe("running");
    expect((await client.campaigns.pause(campaign.id)).status).toBe("paused");
    expect((await client.campaigns.resume(campaign.id)).status).toBe("running");
    await expect(client.campaigns.del(campaign.id)).rejects.toBeInstanceOf(ConflictError);
    expect((await client.campaigns.cancel(campaign.id)).status).toBe("canceled");
    await expect(client.campaigns.del(campaign.id)).resolves.toBeUndefined();

    expect(await client.concurrency.retrieve()).toEqual({ callsInFlight: 0, maxCallsInFlight: expect.any(Number) });
  });
});
