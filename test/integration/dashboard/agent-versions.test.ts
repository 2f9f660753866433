// The agent page's versions over HTTP: "Save as draft" beside "Save and publish", the Versions
// list (number, who, what changed, the live one marked), Publish and Roll back (docs/agents.md,
// "Versions"), and two versions compared (docs/dashboard.md, "Agent versions").
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
    // The form shows the draft it is editing, and the Try panel picks it.
    expect(listed).toMatch(/<textarea[^>]*name="systemPrompt"[^>]*>Two\.<\/textarea>/);
    expect(listed).toMatch(/<option value="2" selected="">\s*Version 2\s*\(draft\)/);
    // A second draft from that form builds on the first: nothing of it is lost.
    expect((await page(`/dashboard/agents/${id}`, { ...agent, systemPrompt: "Two.", name: "Front desk 2", draft: "1" })).status).toBe(303);
    const second = await json<{ config: { name: string; systemPrompt: string } }>(await ws.api(`/v1/agents/${id}/versions/3`));
    expect(second.config).toMatchObject({ name: "Front desk 2", systemPrompt: "Two." });
    expect(listed).toContain(ws.admin.email); // who made each version
    expect(listed).toContain(`action="/dashboard/agents/${id}/publish"`);

    const published = await page(`/dashboard/agents/${id}/publish`, { version: "3" });
    expect([published.status, published.location]).toEqual([303, `/dashboard/agents/${id}?saved=1#versions`]);
    expect(await read()).toMatchObject({ systemPrompt: "Two.", liveVersion: 3, latestVersion: 3 });
    expect((await page(`/dashboard/agents/${id}`)).html).toContain(`action="/dashboard/agents/${id}/rollback"`);

    expect((await page(`/dashboard/agents/${id}/rollback`, { version: "1" })).status).toBe(303);
    expect(await read()).toMatchObject({ systemPrompt: "One.", liveVersion: 4, latestVersion: 4 });

    // Save and publish (no draft field) is live at once; a version that is no number is refused.
    expect((await page(`/dashboard/agents/${id}`, { ...agent, systemPrompt: "Four." })).status).toBe(303);
    expect(await read()).toMatchObject({ systemPrompt: "Four.", liveVersion: 5 });
    expect((await page(`/dashboard/agents/${id}/publish`, { version: "latest" })).status).toBe(400);
    expect((await page(`/dashboard/agents/${id}/publish`, { version: "9" })).status).toBe(404);
  });

  it("compares two versions: each changed field with what was removed and added; a bad or unknown version; another workspace's agent", async () => {
    const ws = await createWorkspace("Versions diff");
    const page = await pagesAs(ws.admin.email, ws.admin.password);
    const created = await ws.api("/v1/agents", {
      method: "POST",
      json: { name: "Desk", personaId: crypto.randomUUID(), systemPrompt: "You take bookings.\nBe brief.", temperature: 0.7 },
    });
    const { id } = await json<{ id: string }>(created);
    const draft = await ws.api(`/v1/agents/${id}?draft=true`, {
      method: "PATCH",
      json: { systemPrompt: "You take bookings.\nBe warm.", temperature: 0.3 },
    });
    expect(draft.status).toBe(200);
    const base = `/dashboard/agents/${id}/versions/diff`;

    // The Versions list links each version to its comparison with the one before.
    const listed = (await page(`/dashboard/agents/${id}`)).html;
    expect(listed).toContain(`href="${base}?from=1&amp;to=2"`);
    expect(listed).toContain("Compare the newest draft with the live version");

    // By default: the newest version against the one before.
    const diff = await page(base);
    expect(diff.status).toBe(200);
    expect(diff.html).toContain("From Version 1 (live) to Version 2 (draft), 2 fields changed: systemPrompt, temperature.");
    expect(diff.html).toMatch(/<del><span class="sr">\[removed: <\/span>Be brief\.<span class="sr">\]<\/span><\/del>/);
    expect(diff.html).toMatch(/<ins><span class="sr">\[added: <\/span>Be warm\.<span class="sr">\]<\/span><\/ins>/);
    expect(diff.html).toMatch(/<span class="line same"><span aria-hidden="true"> {2}<\/span><span>You take bookings\.<\/span>/);
    expect(diff.html).toMatch(/<del><span class="sr">\[removed: <\/span>0\.7/);
    // The draft compared to can be published from here (after a confirmation).
    expect(diff.html).toContain(`action="/dashboard/agents/${id}/publish"`);
    expect(diff.html).toContain('data-confirm="Make version 2 live?"');

    expect((await page(`${base}?from=2&to=2`)).html).toContain("Version 2 (draft) and Version 2 (draft) are the same.");
    const reversed = (await page(`${base}?from=2&to=1`)).html;
    expect(reversed).toMatch(/<del><span class="sr">\[removed: <\/span>Be warm\./);
    expect((await page(`${base}?from=one&to=2`)).status).toBe(400);
    expect((await page(`${base}?from=1&to=9`)).status).toBe(404);

    const other = await createWorkspace("Versions stranger");
    const theirs = await pagesAs(other.admin.email, other.admin.password);
    expect((await theirs(base)).status).toBe(404);
    expect((await theirs(`${base}?from=1&to=2`)).status).toBe(404);
  });
});
