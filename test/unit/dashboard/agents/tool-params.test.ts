// The tool builder's parameter rows ↔ a tool's JSON Schema (src/dashboard/agents/tool-params.ts), the
// mapping the server and the page's script share: rows make an object schema (blank rows skipped,
// problems keyed by row and field), and a schema comes back as rows only when the rows can say all of it.
import { describe, expect, it } from "vitest";
import { emptyRow, type ParamRow, rowsOfSchema, schemaOfRows } from "../../../../src/dashboard/agents/tool-params";

const row = (over: Partial<ParamRow>): ParamRow => ({ ...emptyRow(), ...over });

describe("the tool builder's parameter rows", () => {
  it("make an object schema: types, descriptions, required, allowed values for text; blank rows skipped", () => {
    const made = schemaOfRows([
      row({ name: "orderId", description: " The order number ", required: true }),
      row({}),
      row({ name: "size", choices: " small, large ,," }),
      row({ name: "count", type: "integer" }),
      row({ name: "express", type: "boolean", required: true }),
    ]);
    expect(made.errors).toEqual({});
    expect(made.schema).toEqual({
      type: "object",
      properties: {
        orderId: { type: "string", description: "The order number" },
        size: { type: "string", enum: ["small", "large"] },
        count: { type: "integer" },
        express: { type: "boolean" },
      },
      required: ["orderId", "express"],
    });
    // No row: no schema (the tool takes no arguments); nothing required: no `required`.
    expect(schemaOfRows([row({})])).toEqual({ errors: {} });
    expect(schemaOfRows([row({ name: "q" })]).schema).toEqual({ type: "object", properties: { q: { type: "string" } } });
  });

  it("says what is wrong with each row, by its index and field", () => {
    const made = schemaOfRows([
      row({ name: "", description: "no name" }),
      row({ name: "2fast" }),
      row({ name: "a" }),
      row({ name: "a" }),
      row({ name: "n", type: "number", choices: "1, 2" }),
      row({ name: "t", choices: "x, x" }),
      row({ name: "d", type: "date" }),
    ]);
    expect(made.schema).toBeUndefined();
    expect(made.errors).toEqual({
      "param.0.name": "is required",
      "param.1.name": "must be 1 to 64 letters, digits or _, not starting with a digit",
      "param.3.name": "duplicates another parameter (a)",
      "param.4.choices": "only a text parameter takes allowed values",
      "param.5.choices": "must not repeat a value",
      "param.6.type": "must be one of: string, number, integer, boolean",
    });
  });

  it("read back from a schema only when the rows can say all of it", () => {
    const schema = {
      type: "object",
      properties: { orderId: { type: "string", description: "The number" }, size: { type: "string", enum: ["s", "l"] } },
      required: ["orderId"],
    };
    const rows = rowsOfSchema(schema);
    expect(rows).toEqual([
      { name: "orderId", type: "string", description: "The number", required: true, choices: "" },
      { name: "size", type: "string", description: "", required: false, choices: "s, l" },
    ]);
    expect(schemaOfRows(rows ?? []).schema).toEqual(schema); // the round trip
    expect(rowsOfSchema(undefined)).toEqual([]);
    expect(rowsOfSchema({ type: "object", properties: {} })).toEqual([]);
    for (const other of [
      { type: "object", properties: { ids: { type: "array", items: { type: "string" } } } },
      { type: "object", properties: { n: { type: "integer", minimum: 1 } } },
      { type: "object", properties: { o: { type: "object" } } },
      { type: "object", properties: { a: { type: "string", enum: ["x, y"] } } },
      { type: "object", properties: { a: { type: "number", enum: [1, 2] } } },
      { type: "object", properties: { a: { type: "string" } }, additionalProperties: false },
      { type: "object", properties: { a: { type: "string" } }, required: ["b"] },
      { type: "object", properties: { "a-b": { type: "string" } } },
      "not a schema",
    ])
      expect(rowsOfSchema(other), JSON.stringify(other)).toBeNull();
  });
});
