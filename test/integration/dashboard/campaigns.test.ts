// The Campaigns screen over HTTP (docs/dashboard.md, "Campaigns"): the list with its empty state; the
// new campaign form (the workspace's agents, caller ids and limit of calls in flight) posting a CSV
// as the browser does (multipart), created as a draft through the API's service, or refused with
// every recipient row's problem in a table (line, column, problem), the form's values and the file's
// text kept, and nothing created; a campaign's page with its counts and progress, the buttons its
// status allows, the moves (start, pause, resume, cancel, delete) and the 409 page for one its status
// refuses; the live JSON the page follows; another workspace's campaign a 404.
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { type CampaignFields, campaignSession } from "../../support/campaign-pages";
import { type CampaignView, campaignAgent, closedNow, createCampaign, SHARED_NUMBER } from "../../support/campaigns";
import { createWorkspace, json, type Workspace } from "../../support/harness";
import { fieldError } from "../../support/knowledge-pages";

const shows = (html: string, part: string) => expect(html.includes(part), `the page shows ${part}`).toBe(true);
const lacks = (html: string, part: string) => expect(html.includes(part), `the page lacks ${part}`).toBe(false);

const GOOD = 'phone_number,first_name,appointment\n+1 (415) 555-0101,Ada,"Tuesday, 10:00"\n+14155550102,Alan,Wednesday\n';
/** Two bad rows: a number without its country code (line 3), a needed variable left empty (line 5, after a blank line). */
const BAD = "phone_number,first_name,appointment\n+14155550101,Ada,Tuesday\n4155550102,Alan,Wednesday\n\n+14155550103,,Thursday\n";

type Session = Awaited<ReturnType<typeof campaignSession>>;

/** The rows of the refusal's table: [line, column, problem] each, the problem's text decoded. */
const issueRows = (html: string) => {
  const table = /data-row-issues[\s\S]*?<tbody>([\s\S]*?)<\/tbody>/.exec(html)?.[1] ?? "";
  return [...table.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((m) =>
    [...(m[1] ?? "").matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((c) => (c[1] ?? "").replace(/&quot;/g, '"').replace(/&#39;/g, "'")),
  );
};

const campaignsOf = async (ws: Workspace) => (await json<{ data: CampaignView[] }>(await ws.api("/v1/campaigns"))).data;

describe("the Campaigns screen", () => {
  let ws: Workspace;
  let s: Session;
  let agentId: string;
  const fields = (more: CampaignFields = {}): CampaignFields => ({
    name: "March reminders",
    agentId,
    fromNumbers: SHARED_NUMBER,
    maxAttempts: "2",
    delayMinutes: "30",
    on: ["no-answer", "voicemail"],
    ...more,
  });

  beforeAll(async () => {
    ws = await createWorkspace("Campaigns screen");
    s = await campaignSession(ws);
    agentId = await campaignAgent(ws, { name: "Reminder agent" });
  });

  it("says what campaigns are for when there is none; the form offers the agents, caller ids and the workspace's limit", async () => {
    const list = await (await s.get("/dashboard/campaigns")).text();
    shows(list, "No campaigns yet.");
    shows(list, '<a href="/dashboard/campaigns" aria-current="page">Campaigns</a>');
    shows(list, 'href="/dashboard/campaigns/new"');
    const form = await (await s.get("/dashboard/campaigns/new")).text();
    shows(form, `<option value="${agentId}">Reminder agent</option>`);
    shows(form, `value="${SHARED_NUMBER}"`);
    shows(form, `${SHARED_NUMBER} (shared)`);
    const { maxCallsInFlight } = await json<{ maxCallsInFlight: number }>(await ws.api("/v1/concurrency"));
    shows(form, `1 to ${maxCallsInFlight}, this workspace&#39;s limit (0 in flight now)`);
    shows(form, 'enctype="multipart/form-data"');
  });

  it("creates a draft from a CSV file and shows it: counts, progress, the Start button, the rows with their variables", async () => {
    const res = await s.create(
      fields({ scheduled: "on", days: ["1", "2", "3"], start: "09:00", end: "17:30", timezone: "America/Chicago" }),
      {
        name: "march.csv",
        bytes: GOOD,
      },
    );
    expect(res.status).toBe(303);
    const location = res.headers.get("location") ?? "";
    expect(location).toMatch(/^\/dashboard\/campaigns\/[0-9a-f-]{36}\?created=1$/);
    const id = location.split("/").pop()?.split("?")[0] as string;
    const api = await json<CampaignView>(await ws.api(`/v1/campaigns/${id}`));
    expect(api).toMatchObject({
      name: "March reminders",
      agentId,
      status: "draft",
      fromNumbers: [SHARED_NUMBER],
      recipientCount: 2,
      schedule: { days: [1, 2, 3], start: "09:00", end: "17:30", timezone: "America/Chicago" },
      retry: { maxAttempts: 2, delaySeconds: 1800, on: ["no-answer", "voicemail"] },
    });
    const page = await (await s.get(location)).text();
    shows(page, "Campaign created as a draft");
    shows(page, "0 of 2 done");
    shows(page, '<dd data-count="pending">2</dd>');
    shows(page, "+14155550101");
    shows(page, "first_name: Ada · appointment: Tuesday, 10:00");
    shows(page, "Mon–Wed 09:00–17:30");
    shows(page, "Up to 2 attempts, 30 min apart, on no-answer, voicemail");
    // The buttons a draft allows: start, cancel, delete.
    expect(page).toMatch(/<form method="post" action="\/dashboard\/campaigns\/[^"]+\/start" data-allowed="draft">/);
    expect(page).toMatch(/<form method="post" action="\/dashboard\/campaigns\/[^"]+\/pause" data-allowed="running" hidden="">/);
    expect(page).toMatch(
      /action="\/dashboard\/campaigns\/[^"]+\/cancel" data-allowed="draft running paused" data-confirm="Cancel &quot;March reminders&quot;\?/,
    );
    const list = await (await s.get("/dashboard/campaigns")).text();
    shows(list, `<a href="/dashboard/campaigns/${id}">March reminders</a>`);
    shows(list, `<a href="/dashboard/agents/${agentId}">Reminder agent</a>`);
    shows(list, "0 of 2 done");
  });

  it("refuses a CSV with bad rows: each row's problem with its line, the values and the file's text kept, nothing created", async () => {
    const before = (await campaignsOf(ws)).length;
    const res = await s.create(fields({ name: "Bad rows" }), { name: "bad.csv", bytes: BAD });
    expect(res.status).toBe(400);
    const html = await res.text();
    shows(html, "Problems in the recipients");
    shows(html, "2 problems in all, in 2 recipient rows; nothing was created.");
    const rows = issueRows(html);
    expect(rows).toHaveLength(2);
    expect(rows[0]?.slice(0, 2)).toEqual(["3", "phone_number"]);
    expect(rows[0]?.[2]).toContain('"4155550102" has no country code');
    expect(rows[1]).toEqual(["5", "first_name", "missing: the agent's templates use {{first_name}}"]);
    // What was typed is kept: the name, the agent chosen, the caller id ticked, the retries; the file's text is in the form.
    shows(html, 'value="Bad rows"');
    shows(html, `<option value="${agentId}" selected="">Reminder agent</option>`);
    expect(html).toMatch(new RegExp(`value="\\${SHARED_NUMBER}" checked=""`));
    shows(html, 'name="maxAttempts" type="number" value="2"');
    shows(html, "4155550102,Alan,Wednesday");
    shows(html, "The rows you sent: fix them here");
    expect((await campaignsOf(ws)).length).toBe(before);

    // Fixed in the text area (no file chosen): created.
    const fixed = BAD.replace("4155550102", "+14155550102").replace("+14155550103,,", "+14155550103,Grace,");
    const again = await s.create(fields({ name: "Bad rows", csvText: fixed }));
    expect(again.status).toBe(303);
    expect((await campaignsOf(ws)).length).toBe(before + 1);
  });

  it("says the campaign's own problems on its fields: none chosen, a bad time zone, over the workspace's limit", async () => {
    const before = (await campaignsOf(ws)).length;
    const none = await (await s.create({ name: "" })).text();
    expect(fieldError(none, "name")).toBe("must not be empty");
    expect(fieldError(none, "agentId")).toBe("choose the agent that talks on the calls");
    expect(fieldError(none, "fromNumbers")).toBe("choose at least one caller id");
    expect(fieldError(none, "csv")).toBe("choose a CSV file, or paste its rows below");

    const { maxCallsInFlight } = await json<{ maxCallsInFlight: number }>(await ws.api("/v1/concurrency"));
    const res = await s.create(
      fields({
        scheduled: "on",
        days: ["1"],
        start: "10:00",
        end: "09:00",
        timezone: "Mars/Olympus",
        maxCallsInFlight: String(maxCallsInFlight + 1),
      }),
      { name: "ok.csv", bytes: GOOD },
    );
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(fieldError(html, "timezone")).toBe('"Mars/Olympus" is not an IANA time zone (e.g. America/New_York)');
    expect(fieldError(html, "end")).toContain("must be after start (10:00)");
    expect(fieldError(html, "maxCallsInFlight")).toContain(`must be at most the workspace's limit, ${maxCallsInFlight}`);
    lacks(html, "Problems in the recipients");
    expect((await campaignsOf(ws)).length).toBe(before);

    // A file that is not CSV we read: said on the file's field.
    const latin1 = await (
      await s.create(fields(), { name: "latin1.csv", bytes: new Uint8Array([0x70, 0x68, 0x6f, 0x6e, 0x65, 0x0a, 0xe9]) })
    ).text();
    expect(fieldError(latin1, "csv")).toContain("The CSV file is not UTF-8: line 2");
  });

  it("moves the campaign as its status allows, each move the service's; a move it refuses is the page with the reason (409)", async () => {
    // Closed now: the runner that start and resume wake dials no one, so cancel finds all three pending.
    const campaign = await createCampaign(ws, { agentId, schedule: closedNow() });
    const status = async () => (await json<CampaignView>(await ws.api(`/v1/campaigns/${campaign.id}`))).status;
    const go = async (action: string, done: string) => {
      const res = await s.act(campaign.id, action);
      expect(res.status, action).toBe(303);
      expect(res.headers.get("location")).toBe(`/dashboard/campaigns/${campaign.id}?${done}=1`);
    };
    await go("start", "started");
    expect(await status()).toBe("running");
    const page = await (await s.get(`/dashboard/campaigns/${campaign.id}?started=1`)).text();
    shows(page, "Campaign started");
    expect(page).toMatch(/\/pause" data-allowed="running">/);
    expect(page).toMatch(/\/start" data-allowed="draft" hidden="">/);

    const refused = await s.act(campaign.id, "start");
    expect(refused.status).toBe(409);
    shows(await refused.text(), "The campaign is running: only a draft campaign can be started.");

    await go("pause", "paused");
    expect(await status()).toBe("paused");
    await go("resume", "resumed");
    expect(await status()).toBe("running");
    const deleteRunning = await s.act(campaign.id, "delete");
    expect(deleteRunning.status).toBe(409);
    expect(await status()).toBe("running");
    await go("cancel", "canceled");
    expect(await status()).toBe("canceled");
    const live = await s.live(campaign.id);
    expect(live.status).toBe("canceled");
    expect(live.counts.canceled).toBe(3);
    expect(live.progress).toEqual({ done: 3, total: 3, percent: 100, text: "3 of 3 done" });

    const gone = await s.act(campaign.id, "delete");
    expect(gone.status).toBe(303);
    expect(gone.headers.get("location")).toBe("/dashboard/campaigns?deleted=1");
    expect((await ws.api(`/v1/campaigns/${campaign.id}`)).status).toBe(404);
  });

  it("follows the campaign in JSON (status, counts, progress, the rows shown by state and page)", async () => {
    const campaign = await createCampaign(ws, { agentId });
    const live = await s.live(campaign.id);
    expect(live).toMatchObject({
      status: "draft",
      pausedReason: null,
      callsInFlight: 0,
      progress: { done: 0, total: 3, text: "0 of 3 done" },
    });
    expect(live.counts.pending).toBe(3);
    expect(live.recipients.map((r) => [r.row, r.state, r.stateLabel, r.attempts, r.lastEndedReason])).toEqual([
      [1, "pending", "Pending", 0, "—"],
      [2, "pending", "Pending", 0, "—"],
      [3, "pending", "Pending", 0, "—"],
    ]);
    expect((await s.live(campaign.id, "?state=completed")).recipients).toEqual([]);
    const filtered = await (await s.get(`/dashboard/campaigns/${campaign.id}?state=completed`)).text();
    shows(filtered, "No recipient is completed.");
    shows(filtered, 'data-state="completed"');
  });

  it("answers another workspace's campaign like a missing one, and changes nothing", async () => {
    const other = await createWorkspace("Campaigns, someone else");
    const theirs = await createCampaign(other);
    for (const path of [`/dashboard/campaigns/${theirs.id}`, `/dashboard/campaigns/${randomUUID()}`])
      expect((await s.get(path)).status).toBe(404);
    expect((await s.get(`/dashboard/campaigns/${theirs.id}/live`, true)).status).toBe(404);
    for (const action of ["start", "cancel", "delete"]) expect((await s.act(theirs.id, action)).status).toBe(404);
    expect((await json<CampaignView>(await other.api(`/v1/campaigns/${theirs.id}`))).status).toBe("draft");
    // Another workspace's agent is not one of this workspace's: refused on the agent field, nothing created.
    const before = (await campaignsOf(ws)).length;
    const res = await s.create(fields({ agentId: theirs.agentId as string }), { name: "ok.csv", bytes: GOOD });
    expect(res.status).toBe(400);
    expect(fieldError(await res.text(), "agentId")).toBe("no agent with this id in this workspace");
    expect((await campaignsOf(ws)).length).toBe(before);
  });
});
