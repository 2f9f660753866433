// The dashboard's "Agent version" fields (docs/agents.md, "Versions"): the agent page's Try panel
// (its web call and test chat), the calls list's test call, and the widget, channel and campaign
// forms carry a version through the same services as the API; empty is the live version.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createAgent } from "../../support/calls";
import { campaignSession } from "../../support/campaign-pages";
import { SHARED_NUMBER } from "../../support/campaigns";
import { createWorkspace, json, type Workspace } from "../../support/harness";
import { pagesAs } from "../../support/pages";
import { insertChannel } from "../chats/helpers";

/** An agent whose live version 1 and draft version 2 answer "appointment" differently. */
async function agentWithDraft(ws: Workspace): Promise<string> {
  const agent = await createAgent(ws, { systemPrompt: 'When the user says "appointment", reply "Live version here.".' });
  const res = await ws.api(`/v1/agents/${agent.id}?draft=true`, {
    method: "PATCH",
    json: { systemPrompt: 'When the user says "appointment", reply "Draft version here.".' },
  });
  expect(res.status).toBe(200);
  return agent.id;
}

const WIDGET_FORM = {
  name: "Site",
  mode: "chat",
  allowedOrigins: "https://shop.example.test",
  title: "",
  greeting: "",
  accent: "#4f46e5",
  accentText: "#ffffff",
  background: "#ffffff",
  text: "#1f2937",
  position: "bottom-right",
};

describe("the dashboard's agent version fields", () => {
  it("the Try panel offers the versions; its call and chat run the one chosen, the live one when none is", async () => {
    const ws = await createWorkspace("Try a version");
    const agentId = await agentWithDraft(ws);
    const page = await pagesAs(ws.admin.email, ws.admin.password);
    const html = (await page(`/dashboard/agents/${agentId}`)).html;
    expect(html).toContain('<option value="">Live version (1)</option>');
    expect(html).toContain('<option value="2" selected="">Version 2 (draft)</option>'); // the newest draft, the one the form shows

    const chat = async (agentVersion: string) => {
      const res = await page(`/dashboard/agents/${agentId}/chat`, {
        conversationId: randomUUID(),
        history: "[]",
        message: "appointment",
        agentVersion,
      });
      return { status: res.status, body: JSON.parse(res.html) as { reply?: string; code?: string; message?: string } };
    };
    expect((await chat("2")).body.reply).toBe("Draft version here.");
    expect((await chat("")).body.reply).toBe("Live version here.");
    expect(await chat("9")).toMatchObject({ status: 404, body: { code: "not_found", message: "This agent has no version 9." } });
    expect(await chat("two")).toMatchObject({ status: 400, body: { code: "validation_failed" } });

    const opened = await page(`/dashboard/agents/${agentId}/web-call`, { agentVersion: "2" });
    expect(opened.status).toBe(201);
    const { callId } = JSON.parse(opened.html) as { callId: string };
    expect((await json<{ agentVersion: number }>(await ws.api(`/v1/calls/${callId}`))).agentVersion).toBe(2);
    expect((await page(`/dashboard/agents/${agentId}/web-call`, { agentVersion: "9" })).status).toBe(404);
  });

  it("the calls list's test call runs the version given", async () => {
    const ws = await createWorkspace("Test call version");
    const agentId = await agentWithDraft(ws);
    const page = await pagesAs(ws.admin.email, ws.admin.password);
    expect((await page("/dashboard/calls")).html).toContain('name="agentVersion"');
    const placed = await page("/dashboard/calls/test", { agentId, phoneNumber: "+12025550102", fromNumber: "", agentVersion: "2" });
    expect(placed.status).toBe(303);
    const callId = placed.location?.split("/").pop() as string;
    expect((await json<{ agentVersion: number }>(await ws.api(`/v1/calls/${callId}`))).agentVersion).toBe(2);
    const refused = await page("/dashboard/calls/test", { agentId, phoneNumber: "+12025550102", fromNumber: "", agentVersion: "9" });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain("This agent has no version 9.");
  });

  it("the widget and channel forms pin a version, and empty goes back to the live one", async () => {
    const ws = await createWorkspace("Pinned forms");
    const agentId = await agentWithDraft(ws);
    const page = await pagesAs(ws.admin.email, ws.admin.password);

    const created = await page("/dashboard/widgets", { ...WIDGET_FORM, agentId, agentVersion: "2" });
    expect(created.status, created.html).toBe(303);
    const widgetId = /\/dashboard\/widgets\/([0-9a-f-]{36})/.exec(created.location ?? "")?.[1] as string;
    const widget = async () => json<{ agentVersion: number | null }>(await ws.api(`/v1/widgets/${widgetId}`));
    expect((await widget()).agentVersion).toBe(2);
    expect((await page(`/dashboard/widgets/${widgetId}`)).html).toMatch(/name="agentVersion" type="number" value="2"/);
    expect((await page(`/dashboard/widgets/${widgetId}`, { ...WIDGET_FORM, agentId, agentVersion: "" })).status).toBe(303);
    expect((await widget()).agentVersion).toBeNull();
    const refused = await page("/dashboard/widgets", { ...WIDGET_FORM, agentId, agentVersion: "9" });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain("This agent has no version 9.");

    const channel = await insertChannel(ws, agentId, "telegram");
    const settings = { name: "Bot", agentId, idleTimeoutSeconds: "1800" };
    expect((await page(`/dashboard/channels/${channel.id}`, { ...settings, agentVersion: "2" })).status).toBe(303);
    const read = async () => json<{ agentVersion: number | null }>(await ws.api(`/v1/channels/${channel.id}`));
    expect((await read()).agentVersion).toBe(2);
    expect((await page(`/dashboard/channels/${channel.id}`)).html).toContain("(version 2)");
    expect((await page(`/dashboard/channels/${channel.id}`, { ...settings, agentVersion: "" })).status).toBe(303);
    expect((await read()).agentVersion).toBeNull();
  });

  it("the new campaign form pins a version; one the agent lacks is said on the field", async () => {
    const ws = await createWorkspace("Pinned campaign");
    const agentId = await agentWithDraft(ws);
    const s = await campaignSession(ws);
    const fields = { name: "Pinned", agentId, fromNumbers: SHARED_NUMBER, csvText: "phone_number\n+14155550123\n" };
    const created = await s.create({ ...fields, agentVersion: "2" });
    expect(created.status).toBe(303);
    const id = (created.headers.get("location") ?? "").split("/").pop()?.split("?")[0] as string;
    expect((await json<{ agentVersion: number | null }>(await ws.api(`/v1/campaigns/${id}`))).agentVersion).toBe(2);
    expect(await (await s.get(`/dashboard/campaigns/${id}`)).text()).toContain("Version 2");

    const refused = await s.create({ ...fields, agentVersion: "9" });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toMatch(/id="f-agentVersion-error">This agent has no version 9\.</);
  });
});
