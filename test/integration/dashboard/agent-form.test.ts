// The agent form over HTTP: templates to start from (the form filled, nothing created), the persona
// id folded under Advanced with what it is for, the LLM model offered from what the configured
// provider lists (its chat models: the sandbox's GET /v1/models), and the tool signing secret
// rotated from the page: shown once, in full, then masked; the API signs with the new one.
import { describe, expect, it } from "vitest";
import { createAgent } from "../../support/calls";
import { createWorkspace, json } from "../../support/harness";
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
});
