// The campaigns API on the whole worker (docs/campaigns.md): creation from JSON rows and from a CSV
// upload, every problem answered at once with nothing created, the progress counts, the recipients
// paged, changes and moves between states with their 409s, and campaign.started delivered. Auth
// and tenancy of every route: the routes table (test/support/routes.ts).
import { count, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { campaignRecipients, campaigns } from "../../../src/db/schema";
import {
  allRecipients,
  type CampaignView,
  campaignAgent,
  closedNow,
  createCampaign,
  postCampaign,
  recipients,
  SHARED_NUMBER,
} from "../../support/campaigns";
import { receiversPerTest } from "../../support/deliveries";
import { createWorkspace, expectError, json, testDb, type Workspace } from "../../support/harness";
import { servedContract } from "../../support/openapi";

const { subscribed } = receiversPerTest();

/** Campaigns and recipients the workspace has in the database. */
async function stored(ws: Workspace): Promise<{ campaigns: number; recipients: number }> {
  const db = testDb();
  const [c] = await db.select({ n: count() }).from(campaigns).where(eq(campaigns.organizationId, ws.organizationId));
  const [r] = await db.select({ n: count() }).from(campaignRecipients).where(eq(campaignRecipients.organizationId, ws.organizationId));
  return { campaigns: Number(c?.n), recipients: Number(r?.n) };
}

const csvForm = (fields: Record<string, unknown>, csv: string | Uint8Array) => {
  const form = new FormData();
  form.set("campaign", JSON.stringify(fields));
  form.set("csv", new Blob([csv], { type: "text/csv" }), "recipients.csv");
  return form;
};

const post = (ws: Workspace, path: string) => ws.api(path, { method: "POST" });

describe("creating a campaign", () => {
  it("from JSON rows: a draft with its counts, its recipients in upload order, paged", async () => {
    const ws = await createWorkspace();
    const agentId = await campaignAgent(ws);
    const res = await postCampaign(ws, {
      name: "March reminders",
      agentId,
      fromNumbers: [SHARED_NUMBER],
      schedule: { days: [1, 2, 3, 4, 5], start: "09:00", end: "17:30", timezone: "America/New_York" },
      retry: { maxAttempts: 3 },
      recipients: [
        { phoneNumber: "+1 (415) 555-0100", timezone: "America/Chicago", variables: { first_name: "Ada", appointment: "Mon" } },
        ...recipients(44, 4155550200),
      ],
    });
    expect(res.status).toBe(201);
    const campaign = await json<CampaignView>(res);
    expect(res.headers.get("location")).toBe(`/v1/campaigns/${campaign.id}`);
    expect(campaign).toMatchObject({
      status: "draft",
      agentId,
      fromNumbers: [SHARED_NUMBER],
      retry: { maxAttempts: 3, delaySeconds: 3600, on: ["no-answer", "busy"] },
      maxCallsInFlight: 10,
      callsInFlight: 0,
      recipientCount: 45,
      counts: { pending: 45, calling: 0, completed: 0, voicemail: 0, "no-answer": 0, busy: 0, failed: 0, canceled: 0 },
      startedAt: null,
    });
    expect(await json(await ws.api(`/v1/campaigns/${campaign.id}`))).toEqual(campaign);

    const all = await allRecipients(ws, campaign.id, "", 20);
    expect(all.map((r) => r.row)).toEqual(Array.from({ length: 45 }, (_, i) => i + 1));
    expect(all[0]).toMatchObject({
      phoneNumber: "+14155550100",
      timezone: "America/Chicago",
      variables: { first_name: "Ada", appointment: "Mon" },
      state: "pending",
      attempts: 0,
      lastCallId: null,
    });
    expect(await allRecipients(ws, campaign.id, "state=completed")).toEqual([]);
  });

  it("from a CSV upload: BOM dropped, CRLF, quoted fields, unicode variables, a time zone column", async () => {
    const ws = await createWorkspace();
    const agentId = await campaignAgent(ws);
    const file = new Uint8Array([
      0xef,
      0xbb,
      0xbf,
      ...new TextEncoder().encode(
        'phone_number,timezone,first_name,appointment\r\n+44 20 7946 0958,Europe/London,"Zoë, ""the"" 👋",Tuesday\r\n+14155550101,,José,"Wed\nat 10"\r\n',
      ),
    ]);
    const res = await ws.api("/v1/campaigns", {
      method: "POST",
      body: csvForm({ name: "From CSV", agentId, fromNumbers: [SHARED_NUMBER] }, file),
    });
    expect(res.status).toBe(201);
    const campaign = await json<CampaignView>(res);
    expect(campaign.recipientCount).toBe(2);
    const rows = await allRecipients(ws, campaign.id);
    expect(rows.map(({ row, phoneNumber, timezone, variables }) => ({ row, phoneNumber, timezone, variables }))).toEqual([
      {
        row: 1,
        phoneNumber: "+442079460958",
        timezone: "Europe/London",
        variables: { first_name: 'Zoë, "the" 👋', appointment: "Tuesday" },
      },
      { row: 2, phoneNumber: "+14155550101", timezone: null, variables: { first_name: "José", appointment: "Wed\nat 10" } },
    ]);
  });

  it("answers every row's problem at once, with the CSV line, and creates nothing", async () => {
    const ws = await createWorkspace();
    const agentId = await campaignAgent(ws);
    const csv = [
      "phone_number,first_name,appointment,Bad Column",
      "+14155550100,Ada,Mon,x",
      "415-555-0101,Al,Tue,x",
      "+14155550100,Again,Wed,x",
      "+14155550102,,Thu,x",
    ].join("\n");
    const res = await ws.api("/v1/campaigns", {
      method: "POST",
      body: csvForm({ name: "Bad", agentId, fromNumbers: [SHARED_NUMBER] }, csv),
    });
    const body = await expectError(res, 400, "validation_failed");
    expect(body.issues).toEqual([
      { path: "csv.header.4", message: expect.stringMatching(/^"Bad Column" is not a variable name/) },
      { path: "recipients.1.phoneNumber", message: expect.stringMatching(/has no country code.*\(CSV line 3\)$/) },
      {
        path: "recipients.2.phoneNumber",
        message: "+14155550100 is listed twice: first at recipients.0 (CSV line 2), again on CSV line 4",
      },
      { path: "recipients.3.variables.first_name", message: "missing: the agent's templates use {{first_name}} (CSV line 5)" },
    ]);
    expect(body.message).toMatch(/4 problems in all, in 3 recipient rows; nothing was created\.$/);
    expect(await stored(ws)).toEqual({ campaigns: 0, recipients: 0 });
  });

  it("checks the campaign's fields with its rows: another workspace's agent, a caller id not the workspace's, the limits, the schedule", async () => {
    const ws = await createWorkspace();
    const other = await createWorkspace();
    const res = await postCampaign(ws, {
      name: "Bad",
      agentId: await campaignAgent(other),
      fromNumbers: ["+14155550999"],
      maxCallsInFlight: 1000,
      schedule: { days: [1], start: "18:00", end: "09:00", timezone: "Europe/Nowhere" },
      recipients: [{ phoneNumber: "+14155550100", timezone: "Not/AZone" }],
    });
    const body = await expectError(res, 400, "validation_failed");
    expect(body.issues?.map((i) => i.path)).toEqual([
      "agentId",
      "fromNumbers.0",
      "maxCallsInFlight",
      "schedule.timezone",
      "schedule.end",
      "recipients.0.timezone",
    ]);
    // Types and ranges are the schema's: ISO weekdays, HH:MM, at least 60 s between attempts.
    const typed = await postCampaign(ws, {
      name: "Bad",
      agentId: await campaignAgent(ws),
      fromNumbers: [SHARED_NUMBER],
      schedule: { days: [0, 8], start: "9:00", end: "24:00", timezone: "UTC" },
      retry: { maxAttempts: 6, delaySeconds: 30 },
      recipients: [{ phoneNumber: "+14155550100" }],
    });
    const typedBody = await expectError(typed, 400, "validation_failed");
    expect(typedBody.issues?.map((i) => i.path)).toEqual(
      expect.arrayContaining([
        "schedule.days.0",
        "schedule.days.1",
        "schedule.start",
        "schedule.end",
        "retry.maxAttempts",
        "retry.delaySeconds",
      ]),
    );
    expect(await stored(ws)).toEqual({ campaigns: 0, recipients: 0 });
  });

  it("refuses more than 10,000 recipients (400) and a body over 5 MiB (413)", async () => {
    const ws = await createWorkspace();
    const agentId = await campaignAgent(ws, { systemPrompt: "You remind people.", firstMessage: null });
    const rows = Array.from({ length: 10_001 }, (_, i) => ({ phoneNumber: `+1415${String(i).padStart(7, "0")}` }));
    const tooMany = await postCampaign(ws, { name: "Big", agentId, fromNumbers: [SHARED_NUMBER], recipients: rows });
    const body = await expectError(tooMany, 400, "validation_failed");
    expect(body.message).toMatch(/recipients: at most 10,000 recipients per campaign/);
    const csv = `phone_number,note\n${Array.from({ length: 9_000 }, (_, i) => `+1415${String(i).padStart(7, "0")},${"x".repeat(600)}`).join("\n")}`;
    const big = await ws.api("/v1/campaigns", {
      method: "POST",
      body: csvForm({ name: "Big", agentId, fromNumbers: [SHARED_NUMBER] }, csv),
    });
    await expectError(big, 413, "payload_too_large");
    expect(await stored(ws)).toEqual({ campaigns: 0, recipients: 0 });
  });
});

describe("a campaign's life", () => {
  it("start, pause, resume, cancel; each illegal move a 409 saying what is allowed; changes only while draft or paused", async () => {
    const ws = await createWorkspace();
    // Closed now: the runner that start and resume wake dials no one, so the recipients stay pending until canceled.
    const campaign = await createCampaign(ws, { schedule: closedNow() });
    const at = `/v1/campaigns/${campaign.id}`;
    expect((await expectError(await post(ws, `${at}/pause`), 409, "conflict")).message).toBe(
      "The campaign is a draft: only a running campaign can be paused.",
    );
    await expectError(await post(ws, `${at}/resume`), 409, "conflict");
    const renamed = await ws.api(at, { method: "PATCH", json: { name: "Renamed", retry: { delaySeconds: 120 } } });
    expect(await json(renamed)).toMatchObject({ name: "Renamed", retry: { maxAttempts: 1, delaySeconds: 120, on: ["no-answer", "busy"] } });

    const started = await json<CampaignView>(await post(ws, `${at}/start`));
    expect(started).toMatchObject({ status: "running", startedAt: expect.any(String), counts: { pending: 3 } });
    expect((await expectError(await post(ws, `${at}/start`), 409, "conflict")).message).toBe(
      "The campaign is running: only a draft campaign can be started.",
    );
    await expectError(await ws.api(at, { method: "PATCH", json: { name: "Again" } }), 409, "conflict");
    await expectError(await ws.api(at, { method: "DELETE" }), 409, "conflict");

    expect(await json(await post(ws, `${at}/pause`))).toMatchObject({ status: "paused", pausedReason: null });
    expect(await json(await ws.api(at, { method: "PATCH", json: { maxCallsInFlight: 2 } }))).toMatchObject({ maxCallsInFlight: 2 });
    expect(await json(await post(ws, `${at}/resume`))).toMatchObject({ status: "running", startedAt: started.startedAt });

    const canceled = await json<CampaignView>(await post(ws, `${at}/cancel`));
    expect(canceled).toMatchObject({ status: "canceled", counts: { pending: 0, canceled: 3 } });
    expect((await allRecipients(ws, campaign.id, "state=canceled")).length).toBe(3);
    expect((await expectError(await post(ws, `${at}/cancel`), 409, "conflict")).message).toBe(
      "The campaign is canceled: only a draft, running or paused campaign can be canceled.",
    );
    await expectError(await post(ws, `${at}/resume`), 409, "conflict");
    expect((await ws.api(at, { method: "DELETE" })).status).toBe(204);
    await expectError(await ws.api(at), 404, "not_found");
    expect(await stored(ws)).toEqual({ campaigns: 0, recipients: 0 });
  });

  it("a draft is deleted, or canceled with its recipients; a campaign whose agent was deleted cannot start", async () => {
    const ws = await createWorkspace();
    const draft = await createCampaign(ws);
    expect((await ws.api(`/v1/campaigns/${draft.id}`, { method: "DELETE" })).status).toBe(204);
    const other = await createCampaign(ws);
    expect(await json(await post(ws, `/v1/campaigns/${other.id}/cancel`))).toMatchObject({ status: "canceled", counts: { canceled: 3 } });

    const orphan = await createCampaign(ws);
    expect((await ws.api(`/v1/agents/${orphan.agentId}`, { method: "DELETE" })).status).toBe(204);
    expect(await json(await ws.api(`/v1/campaigns/${orphan.id}`))).toMatchObject({ agentId: null, status: "draft" });
    expect((await expectError(await post(ws, `/v1/campaigns/${orphan.id}/start`), 409, "conflict")).message).toMatch(
      /agent was deleted: it cannot be started/,
    );
  });

  it("lists newest first with counts, filtered by status", async () => {
    const ws = await createWorkspace();
    const agentId = await campaignAgent(ws);
    const a = await createCampaign(ws, { agentId, schedule: closedNow() }); // started below: its runner dials no one
    const b = await createCampaign(ws, { agentId, recipients: recipients(5) });
    await post(ws, `/v1/campaigns/${a.id}/start`);
    const page = await json<{ data: CampaignView[] }>(await ws.api("/v1/campaigns"));
    expect(page.data.map((c) => [c.id, c.status, c.counts.pending])).toEqual([
      [b.id, "draft", 5],
      [a.id, "running", 3],
    ]);
    const running = await json<{ data: CampaignView[] }>(await ws.api("/v1/campaigns?status=running"));
    expect(running.data.map((c) => c.id)).toEqual([a.id]);
  });

  it("sends campaign.started to an endpoint subscribed to it, with the campaign and its counts", async () => {
    const ws = await createWorkspace();
    const { receiver } = await subscribed(ws, { channels: ["voice"], events: ["campaign.started"] });
    const campaign = await createCampaign(ws, { schedule: closedNow() });
    await post(ws, `/v1/campaigns/${campaign.id}/start`);
    const [delivery] = await receiver.waitFor(1);
    const payload = JSON.parse(delivery?.body ?? "{}");
    expect(payload).toMatchObject({
      event: "campaign.started",
      channel: "campaign",
      campaign: { id: campaign.id, status: "running", recipientCount: 3, counts: { pending: 3 } },
    });
    expect((await servedContract()).checkWebhook("campaign.started", payload)).toEqual([]);
  });
});
