// The agent form over HTTP: templates to start from (the form filled, nothing created), the persona
// id folded under Advanced with what it is for, the LLM model offered from what the configured
// provider lists (its chat models: the sandbox's GET /v1/models), and the tool signing secret
// rotated from the page: shown once, in full, then masked; the API signs with the new one. Its
// Knowledge section links the workspace's knowledge bases through the API's schema and service.
// Its Voicemail section sets the answering-machine detection plan.
import { describe, expect, it } from "vitest";
import { createAgent } from "../../support/calls";
import { createWorkspace, json, type Workspace } from "../../support/harness";
import { pagesAs } from "../../support/pages";

const field = (html: string, name: string) => new RegExp(`<textarea id="f-${name}"[^>]*>([^<]*)</textarea>`).exec(html)?.[1];

describe("the agent form", () => {
  it("starts from a template: the form filled with its values, nothing created until it is saved", async () => {
    const ws = await createWorkspace("Agent templates");
    const page = await pagesAs(ws.admin.email, ws.admin.password);
    const blank = (await page("/dashboard/agents/new")).html;
    expect(blank).toContain('<nav class="card" aria-label="Start from a template">');
    expect(blank).toContain('<a href="/dashboard/agents/new?template=appointment-reminder">Appointment reminder</a>');
    const filled = (await page("/dashboard/agents/new?template=appointment-reminder")).html;
    expect(filled).toContain("Started from “Appointment reminder”.");
    expect(filled).toContain('<input id="f-name" name="name" type="text" value="Appointment reminder"');
    expect(field(filled, "firstMessage")).toBe(
      "Hello {{name}}, this is a reminder of your appointment on {{date}} at {{time}}. Can you still make it?",
    );
    expect(field(filled, "successCriteria")).toBe("The customer confirmed or asked to reschedule");
    expect((await json<{ data: unknown[] }>(await ws.api("/v1/agents"))).data).toEqual([]);
    // An unknown template is the empty form.
    expect((await page("/dashboard/agents/new?template=nope")).html).not.toContain("Started from");
  });

  it("folds the persona id under Advanced, says what it is for, and offers the provider's chat models", async () => {
    const ws = await createWorkspace("Agent form");
    const page = await pagesAs(ws.admin.email, ws.admin.password);
    const html = (await page("/dashboard/agents/new")).html;
    expect(html).toMatch(/<details class="advanced"><summary>Advanced: persona id and metadata<\/summary><div><label for="f-personaId">/);
    expect(html).toContain("Your own identifier for this agent&#39;s persona");
    expect(html).toMatch(/<input id="f-personaId" name="personaId" type="text" value="[0-9a-f-]{36}" required=""/);
    const options = [...(/<datalist id="f-llmModel-options">(.*?)<\/datalist>/.exec(html)?.[1] ?? "").matchAll(/value="([^"]+)"/g)].map(
      (m) => m[1],
    );
    expect(options).toEqual(["gpt-4o", "gpt-4o-mini", "sandbox-chat"]); // the sandbox's list without its speech models
    expect(html).toContain('list="f-llmModel-options"');
  });

  it("rotates the tool signing secret from the page: shown once in full, then masked; the API has the new one", async () => {
    const ws = await createWorkspace("Agent secret");
    const agent = await createAgent(ws);
    const page = await pagesAs(ws.admin.email, ws.admin.password);
    const before = (await json<{ toolSecret: string }>(await ws.api(`/v1/agents/${agent.id}`))).toolSecret;
    const rotated = await page(`/dashboard/agents/${agent.id}/rotate-tool-secret`, {});
    expect(rotated.status).toBe(200);
    const secret = /<code id="tool-secret">(tss_[A-Za-z0-9]{40})<\/code>/.exec(rotated.html)?.[1] ?? "";
    expect(secret).not.toBe("");
    expect(rotated.html).toContain("Copy it now: it is not shown again.");
    const after = (await json<{ toolSecret: string }>(await ws.api(`/v1/agents/${agent.id}`))).toolSecret;
    expect(after).toBe(`tss_...${secret.slice(-6)}`);
    expect(after).not.toBe(before);
    const again = (await page(`/dashboard/agents/${agent.id}`)).html;
    expect(again).not.toContain(secret);
    expect(again).toContain(`<code>tss_...${secret.slice(-6)}</code>`);
  });

  it("links knowledge bases in its Knowledge section, with topK, max distance and retrieval, through the API's schema and service", async () => {
    const ws = await createWorkspace("Agent knowledge");
    const base = async (owner: Workspace, name: string) =>
      (await json<{ id: string }>(await owner.api("/v1/knowledge-bases", { method: "POST", json: { name } }))).id;
    const prices = await base(ws, "Prices");
    const hours = await base(ws, "Opening hours");
    const page = await pagesAs(ws.admin.email, ws.admin.password);
    const blank = (await page("/dashboard/agents/new")).html;
    for (const [id, name] of [
      [hours, "Opening hours"],
      [prices, "Prices"],
    ])
      expect(
        blank.includes(`<input type="checkbox" id="f-knowledgeBaseIds-${id}" name="knowledgeBaseIds" value="${id}"/>${name}`),
        name,
      ).toBe(true);

    const agent = { name: "Front desk", personaId: crypto.randomUUID(), language: "en-US", llmModel: "gpt-4o-mini" };
    const fields = { ...agent, knowledgeShown: "1", knowledgeBaseIds: prices };
    const created = await page("/dashboard/agents", {
      ...fields,
      knowledgeTopK: "4",
      knowledgeMaxDistance: "0.8",
      knowledgeRetrieval: "tool",
    });
    expect(created.status).toBe(303);
    const id = /\/dashboard\/agents\/([0-9a-f-]{36})/.exec(created.location ?? "")?.[1] as string;
    const knowledge = async () => (await json<{ knowledge: unknown }>(await ws.api(`/v1/agents/${id}`))).knowledge;
    expect(await knowledge()).toEqual({ knowledgeBaseIds: [prices], topK: 4, maxDistance: 0.8, retrieval: "tool" });
    const edit = (await page(`/dashboard/agents/${id}`)).html;
    expect(edit.includes(`value="${prices}" checked=""`), "the linked base checked").toBe(true);
    expect(edit.includes(`value="${hours}"/>`), "the other not").toBe(true);

    // A form without the section leaves the plan as it is; with it and no box checked, none is linked.
    expect((await page(`/dashboard/agents/${id}`, agent)).status).toBe(303);
    expect(await knowledge()).toEqual({ knowledgeBaseIds: [prices], topK: 4, maxDistance: 0.8, retrieval: "tool" });
    const cleared = await page(`/dashboard/agents/${id}`, {
      ...agent,
      knowledgeShown: "1",
      knowledgeTopK: "3",
      knowledgeMaxDistance: "",
      knowledgeRetrieval: "every_turn",
    });
    expect(cleared.status).toBe(303);
    expect(await knowledge()).toEqual({ knowledgeBaseIds: [], topK: 3, maxDistance: null, retrieval: "every_turn" });

    // Refused on their fields, what was chosen kept: the API's bounds, and another workspace's knowledge base.
    const other = await base(await createWorkspace("Someone else's knowledge"), "Theirs");
    for (const [more, field, message] of [
      [{ knowledgeTopK: "11" }, "knowledgeTopK", "must be at most 10"],
      [{ knowledgeMaxDistance: "2.5" }, "knowledgeMaxDistance", "must be at most 2"],
      [{ knowledgeRetrieval: "always" }, "knowledgeRetrieval", "must be one of"],
      [{ knowledgeBaseIds: other }, "knowledgeBaseIds", "no knowledge base with this id in this workspace"],
    ] as const) {
      const refused = await page(`/dashboard/agents/${id}`, { ...fields, ...more });
      expect(refused.status, field).toBe(400);
      const error = new RegExp(`id="f-${field}-error">([^<]*)<`).exec(refused.html)?.[1];
      expect(error, field).toContain(message);
    }
    expect(await knowledge()).toEqual({ knowledgeBaseIds: [], topK: 3, maxDistance: null, retrieval: "every_turn" });
  });
  it("sets the voicemail plan in its Voicemail section: the message shown again, one missing refused on its field", async () => {
    const ws = await createWorkspace("Agent voicemail");
    const page = await pagesAs(ws.admin.email, ws.admin.password);
    const agent = { name: "Reminders", personaId: crypto.randomUUID(), language: "en-US", llmModel: "gpt-4o-mini" };
    const message = "Hi {{name}}, this is Acme Dental. Please call us back.";
    const created = await page("/dashboard/agents", { ...agent, voicemailDetection: "leave-message", voicemailMessage: message });
    expect(created.status).toBe(303);
    const id = /\/dashboard\/agents\/([0-9a-f-]{36})/.exec(created.location ?? "")?.[1] as string;
    const voicemail = async () => (await json<{ voicemail: unknown }>(await ws.api(`/v1/agents/${id}`))).voicemail;
    expect(await voicemail()).toEqual({ detection: "leave-message", message });
    const edit = (await page(`/dashboard/agents/${id}`)).html;
    expect(edit).toMatch(/<option value="leave-message" selected="">/);
    expect(field(edit, "voicemailMessage")).toBe(message);

    const refused = await page(`/dashboard/agents/${id}`, { ...agent, voicemailDetection: "leave-message", voicemailMessage: "  " });
    expect(refused.status).toBe(400);
    expect(/id="f-voicemailMessage-error">([^<]*)</.exec(refused.html)?.[1]).toContain("required when detection is leave-message");
    // Off, and a form without the section leaves the plan as it is.
    expect((await page(`/dashboard/agents/${id}`, { ...agent, voicemailDetection: "off" })).status).toBe(303);
    expect(await voicemail()).toEqual({ detection: "off", message: null });
    expect((await page(`/dashboard/agents/${id}`, { ...agent, voicemailDetection: "hang-up" })).status).toBe(303);
    expect((await page(`/dashboard/agents/${id}`, agent)).status).toBe(303);
    expect(await voicemail()).toEqual({ detection: "hang-up", message: null });
  });
});
