// The Usage screen's range from its query (src/dashboard/usage/range.ts): a preset, or any days from
// one date to another, checked; without either (or with a preset it does not offer) the last 30 days.
import { describe, expect, it } from "vitest";
import { rangeOf } from "../../../../src/dashboard/usage/range";
import { daysOf } from "../../../../src/usage/service";

const today = new Date().toISOString().slice(0, 10);
const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);

describe("the Usage screen's range", () => {
  it("takes a preset, or the last 30 days", () => {
    expect(rangeOf({ days: "7" }).range).toMatchObject({ firstDay: daysAgo(6), lastDay: today, preset: 7, label: "the last 7 days" });
    expect(rangeOf({}).range).toMatchObject({ firstDay: daysAgo(29), lastDay: today, preset: 30 });
    expect(rangeOf({ days: "10000" }).range.preset).toBe(30);
    expect(daysOf(rangeOf({ days: "90" }).range)).toHaveLength(90);
  });

  it("takes any days from one date to another, both included", () => {
    const { range, errors } = rangeOf({ from: "2024-02-01", to: "2024-03-01" });
    expect(errors).toEqual({});
    expect(range).toEqual({ firstDay: "2024-02-01", lastDay: "2024-03-01", preset: null, label: "the days from 2024-02-01 to 2024-03-01" });
    expect(daysOf(range)).toHaveLength(30); // 2024 is a leap year
    expect(rangeOf({ from: "2024-02-29", to: "2024-02-29" }).range.label).toBe("the day 2024-02-29");
    expect(rangeOf({ from: "2024-01-01", to: "2024-12-31" }).errors).toEqual({}); // 366 days
  });

  it("refuses what is not a range it can show, on the field at fault, and falls back to the last 30 days", () => {
    const cases: Array<[Record<string, string>, Record<string, string>]> = [
      [{ from: "2024-03-01", to: "2024-02-01" }, { from: "must not be after the last day" }],
      [{ from: today, to: "2999-01-01" }, { to: `must not be after today (${today}, UTC)` }],
      [{ from: "2024-01-01", to: "2025-01-01" }, { to: "makes the range longer than 366 days" }],
      [{ from: "2025-02-29", to: "2025-03-01" }, { from: "must be a day (YYYY-MM-DD)" }],
      [
        { from: "yesterday", to: "" },
        { from: "must be a day (YYYY-MM-DD)", to: "is required" },
      ],
      [{ to: "2024-01-01" }, { from: "is required" }],
    ];
    for (const [query, errors] of cases) {
      const out = rangeOf(query);
      expect(out.errors, JSON.stringify(query)).toEqual(errors);
      expect(out.range.preset).toBe(30);
      expect(out.values).toEqual({ from: query.from ?? "", to: query.to ?? "" });
    }
  });
});
