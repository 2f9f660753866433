// Auto-pagination and page access against the real worker (docs/pagination.md): `for await` over
// a list walks every page once, newest first, with the filters kept; a Page gives the cursor.
import { describe, expect, it } from "vitest";
import { type Agent, Page } from "../../../packages/sdk/src/index";
import { createWorkspace } from "../../support/harness";
import { PERSONA, sdkFor } from "../../support/sdk";

describe("SDK pagination", () => {
  it("for await walks every item of more than two pages exactly once, newest first, one request per page", async () => {
    const client = sdkFor(await createWorkspace());
    const created: Agent[] = [];
    for (let i = 0; i < 7; i++) created.push(await client.agents.create({ name: `Agent ${i}`, personaId: PERSONA }));
    client.attempts.length = 0;

    const seen: string[] = [];
    for await (const agent of client.agents.list({ limit: 3 })) seen.push(agent.id);

    expect(seen).toEqual(created.map((a) => a.id).reverse());
    expect(client.attempts).toHaveLength(3); // 3 + 3 + 1
    const cursors = client.attempts.map((a) => new URL(a.url).searchParams);
    expect(cursors.map((q) => q.get("limit"))).toEqual(["3", "3", "3"]);
    expect(cursors[0]?.get("cursor")).toBeNull();
    expect(cursors[1]?.get("cursor")).toEqual(expect.any(String));
  });

  it("keeps the filters on every page", async () => {
    const client = sdkFor(await createWorkspace());
    for (let i = 0; i < 5; i++) await client.agents.create({ name: `Desk ${i}`, personaId: PERSONA });
    for (let i = 0; i < 3; i++) await client.agents.create({ name: `Other ${i}`, personaId: PERSONA });
    const names: string[] = [];
    for await (const agent of client.agents.list({ limit: 2, name: "desk" })) names.push(agent.name);
    expect(names).toEqual(["Desk 4", "Desk 3", "Desk 2", "Desk 1", "Desk 0"]);
    expect(client.attempts.slice(-3).every((a) => new URL(a.url).searchParams.get("name") === "desk")).toBe(true);
  });

  it("page access: data, nextCursor, hasMore, getNextPage, iterPages, and a cursor passed back by hand", async () => {
    const client = sdkFor(await createWorkspace());
    for (let i = 0; i < 5; i++) await client.agents.create({ name: `Agent ${i}`, personaId: PERSONA });

    const first = await client.agents.list({ limit: 2 });
    expect(first).toBeInstanceOf(Page);
    expect(first.data.map((a) => a.name)).toEqual(["Agent 4", "Agent 3"]);
    expect(first.hasMore).toBe(true);
    expect(first.nextCursor).toEqual(expect.any(String));
    expect(first.hasNextPage()).toBe(true);

    const second = await first.getNextPage();
    expect(second.data.map((a) => a.name)).toEqual(["Agent 2", "Agent 1"]);
    const byHand = await client.agents.list({ limit: 2, cursor: first.nextCursor ?? undefined });
    expect(byHand.data).toEqual(second.data);

    const last = await second.getNextPage();
    expect(last.data.map((a) => a.name)).toEqual(["Agent 0"]);
    expect(last.hasMore).toBe(false);
    expect(last.nextCursor).toBeNull();
    expect(last.hasNextPage()).toBe(false);
    await expect(last.getNextPage()).rejects.toThrow(/last/);

    const sizes: number[] = [];
    for await (const page of first.iterPages()) sizes.push(page.data.length);
    expect(sizes).toEqual([2, 2, 1]);
  });

  it("an empty list iterates nothing, in one request", async () => {
    const client = sdkFor(await createWorkspace());
    const items: unknown[] = [];
    for await (const w of client.widgets.list({ limit: 5 })) items.push(w);
    expect(items).toEqual([]);
    expect(client.attempts).toHaveLength(1);
  });
});
