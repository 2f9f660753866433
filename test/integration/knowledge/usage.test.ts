// Knowledge's embeddings in the usage figures (docs/knowledge.md, "Metering"): a document's
// ingestion and each query are metered as modality `embedding`; GET /v1/usage?modality=embedding
// gives their daily totals, equal to the request log it lists summed, and the Usage screen draws them
// as its "Embeddings (knowledge)" bars, in credits and in requests.
import { describe, expect, it } from "vitest";
import { createWorkspace, json, settled } from "../../support/harness";
import { addText, newKnowledgeBase, processed } from "../../support/knowledge";
import { pagesAs } from "../../support/pages";

interface Usage {
  totals: Array<{ day: string; modality: string; requests: number; succeeded: number; quantity: number; unit: string; cost: number }>;
  requests: { data: Array<{ modality: string; endpoint: string; status: number; quantity: number; cost: number }>; hasMore: boolean };
}

describe("embeddings in the usage figures", () => {
  it("GET /v1/usage's daily totals for modality=embedding, and the Usage screen's Embeddings (knowledge) bars", async () => {
    const ws = await createWorkspace("Knowledge usage");
    const kb = await newKnowledgeBase(ws);
    const doc = await processed(ws, kb, await addText(ws, kb, "Prices", "# Cleaning\n\nA cleaning costs 80 dollars."));
    expect(doc.status).toBe("ready");
    for (const query of ["How much is a cleaning?", "cleaning price"]) {
      const res = await ws.api(`/v1/knowledge-bases/${kb}/query`, { method: "POST", json: { query } });
      expect(res.status).toBe(200);
    }
    await settled(ws.organizationId);

    const usage = await json<Usage>(await ws.api("/v1/usage?modality=embedding&days=1&limit=100"));
    expect(usage.requests.hasMore).toBe(false);
    expect(usage.requests.data.map((r) => [r.modality, r.endpoint, r.status])).toEqual([
      ["embedding", `/v1/knowledge-bases/${kb}/query`, 200],
      ["embedding", `/v1/knowledge-bases/${kb}/query`, 200],
      ["embedding", `/v1/knowledge-bases/${kb}/documents`, 200],
    ]);
    const [total, ...others] = usage.totals;
    expect(others).toEqual([]);
    const sum = (f: (r: Usage["requests"]["data"][number]) => number) => usage.requests.data.reduce((n, r) => n + f(r), 0);
    expect(total).toMatchObject({ modality: "embedding", unit: "tokens", requests: 3, succeeded: 3, quantity: sum((r) => r.quantity) });
    expect(total?.quantity).toBeGreaterThan(0);
    expect(total?.cost).toBeCloseTo(
      sum((r) => r.cost),
      9,
    );
    // Without the filter the day has them too, beside nothing else (no other use in this workspace).
    const all = await json<Usage>(await ws.api("/v1/usage?days=1"));
    expect(all.totals).toEqual(usage.totals);

    const page = await pagesAs(ws.admin.email, ws.admin.password);
    const { status, html } = await page("/dashboard/usage?days=7");
    expect(status).toBe(200);
    expect(html).toContain(`<title>${total?.day} · Embeddings (knowledge): 3</title>`);
    expect(html).toMatch(new RegExp(`<title>${total?.day} · Embeddings \\(knowledge\\): [0-9.e-]+</title>`));
    expect(html.match(/class="bar embedding"/g)).toHaveLength(2); // one bar in each chart
    expect(html).not.toContain("· LLM chat:");
  });
});
