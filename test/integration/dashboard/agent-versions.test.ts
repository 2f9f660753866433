// The agent page's versions over HTTP: "Save as draft" beside "Save and publish", the Versions
// list (number, who, what changed, the live one marked), Publish and Roll back (docs/agents.md, "Versions").
import { describe, expect, it } from "vitest";
import { createWorkspace, json } from "../../support/harness";
import { pagesAs } from "../../support/pages";

interface AgentOut {
  systemPrompt: string;
  liveVersion: number;
  latestVersion: number;
}

describe("the agent page's versions", () => {
  it("saves a draft, lists the versions, publishes one and rolls back to another", async () => {
    const ws = await createWorkspace("Versions page");
    const page = await pagesAs(ws.admin.email, ws.admin.password);
    const agent = { name: "Front desk", personaId: crypto.randomUUID(), language: "en-US", llmModel: "gpt-4o-mini" };
    const created = await page("/dashboard/agents", { ...agent, systemPrompt: "One." });
    const id = /\/dashboard\/agents\/([0-9a-f-]{36})/.exec(created.location ?? "")?.[1] as string;
    const read = async () => json<AgentOut>(await ws.api(`/v1/agents/${id}`));

    const form = (await page(`/dashboard/agents/${id}`)).html;
    expect(form).toContain(">Save and publish</button>");
    expect(form).toContain('name="draft" value="1"');

    const drafted = await page(`/dashboard/agents/${id}`, { ...agent, systemPrompt: "Two.", draft: "1" });
    expect([drafted.status, drafted.location]).toEqual([303, `/dashboard/agents/${id}?saved=draft`]);
    expect(await read()).toMatchObject({ systemPrompt: "One.", liveVersion: 1, latestVersion: 2 });
    const listed = (await page(`/dashboard/agents/${id}?saved=draft`)).html;
    expect(listed).toContain("Saved as a draft: not live until published.");
    expect(listed).toContain("Version 2 is a draft, not live");
    expect(listed).toContain(ws.admin.email); // who made each version
    expect(listed).toContain(`action="/dashboard/agents/${id}/publish"`);

    const published = await page(`/dashboard/agents/${id}/publish`, { version: "2" });
    expect([published.status, published.location]).toEqual([303, `/dashboard/agents/${id}?saved=1#versions`]);
    expect(await read()).toMatchObject({ systemPrompt: "Two.", liveVersion: 2, latestVersion: 2 });
    expect((await page(`/dashboard/agents/${id}`)).html).toContain(`action="/dashboard/agents/${id}/rollback"`);

    expect((await page(`/dashboard/agents/${id}/rollback`, { version: "1" })).status).toBe(303);
    expect(await read()).toMatchObject({ systemPrompt: "One.", liveVersion: 3, latestVersion: 3 });

    // Save and publish (no draft field) is live at once; a version that is no number is refused.
    expect((await page(`/dashboard/agents/${id}`, { ...agent, systemPrompt: "Four." })).status).toBe(303);
    expect(await read()).toMatchObject({ systemPrompt: "Four.", liveVersion: 4 });
    expect((await page(`/dashboard/agents/${id}/publish`, { version: "latest" })).status).toBe(400);
    expect((await page(`/dashboard/agents/${id}/publish`, { version: "9" })).status).toBe(404);
  });
});
