// The dashboard's UI kit (src/dashboard/ui): the DataTable every list uses, and its empty state.
import { jsx } from "hono/jsx";
import { describe, expect, it } from "vitest";
import { type Column, DataTable, EmptyState } from "../../../src/dashboard/ui";

interface Row {
  id: string;
  name: string;
}

const columns: Array<Column<Row>> = [
  { header: "Name", cell: (r) => jsx("a", { href: `/x/${r.id}` }, r.name) },
  { header: "Id", class: "mono", label: "Id", cell: (r) => r.id },
];

const html = (node: unknown) => String(node);

describe("DataTable", () => {
  it("renders a header cell per column and a row per item, cells in column order, in a focusable scrolling card", () => {
    const out = html(
      DataTable({
        columns,
        rows: [
          { id: "1", name: "One" },
          { id: "2", name: "Two" },
        ],
      }),
    );
    expect(out).toMatch(/^<div class="card table-wrap" tabindex="0"><table>/);
    expect(out).toContain('<thead><tr><th scope="col">Name</th><th scope="col">Id</th></tr></thead>');
    expect(out).toContain('<tr><td><a href="/x/1">One</a></td><td class="mono" data-label="Id">1</td></tr>');
    expect(out.match(/<tr>/g)).toHaveLength(3);
    expect(out.indexOf("One")).toBeLessThan(out.indexOf("Two"));
  });

  it("escapes what the rows hold", () => {
    const out = html(DataTable({ columns, rows: [{ id: "<b>", name: "<script>alert(1)</script>" }] }));
    expect(out).not.toContain("<script>");
    expect(out).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(out).toContain("&lt;b&gt;");
  });

  it("gives way to its empty state when there are no rows, and renders an empty table when it has none", () => {
    const empty = jsx(EmptyState, { action: { href: "/dashboard/agents/new", label: "Create the first one" } }, "No agents yet.");
    const out = html(DataTable({ columns, rows: [], empty }));
    expect(out).not.toContain("<table");
    expect(out).toBe(
      '<div class="card table-wrap" tabindex="0"><p class="empty">No agents yet. <a href="/dashboard/agents/new">Create the first one</a>.</p></div>',
    );
    expect(html(DataTable({ columns, rows: [] }))).toContain("<tbody></tbody>");
  });

  it("stacks rows on phones and names the table with a caption when asked", () => {
    const out = html(DataTable({ columns, rows: [{ id: "1", name: "One" }], stack: true, caption: "1 key" }));
    expect(out).toContain('<table class="stack"><caption class="muted small left">1 key</caption>');
  });
});

describe("EmptyState", () => {
  it("says what is missing, muted when it is a note rather than a first step", () => {
    expect(html(jsx(EmptyState, { muted: true }, "None yet."))).toBe('<p class="empty muted">None yet.</p>');
  });
});
