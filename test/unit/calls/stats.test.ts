// The calls' daily latency histogram (src/calls/queries/stats.ts): its buckets (which migration
// 0020 repeats in SQL), the percentiles read from it, and adding histograms of any lengths.
import { describe, expect, it, vi } from "vitest";
import {
  addHistograms,
  addToDailyStats,
  bucketMiddle,
  histogramOf,
  histogramPercentile,
  LATENCY_BUCKETS,
  latencyBucket,
  trimmed,
} from "../../../src/calls/queries/stats";
import type { Db } from "../../../src/db/client";

describe("latency buckets", () => {
  it("are 10 ms wide below 3 s, 100 ms wide below 10 s, then one for the rest (371, as migration 0020 writes them)", () => {
    expect(LATENCY_BUCKETS).toBe(371);
    expect([0, 9, 10, 2_999, 3_000, 3_099, 3_100, 9_999, 10_000, 600_000].map(latencyBucket)).toEqual([
      0, 0, 1, 299, 300, 300, 301, 369, 370, 370,
    ]);
    expect([0, 299, 300, 369, 370].map(bucketMiddle)).toEqual([5, 2_995, 3_050, 9_950, 10_000]);
    // A bucket's middle falls in the bucket.
    for (let i = 0; i < LATENCY_BUCKETS - 1; i++) expect(latencyBucket(bucketMiddle(i))).toBe(i);
  });

  it("give nearest-rank percentiles to the bucket, and null for nothing", () => {
    const h = histogramOf([400, 600, 800, 1_000]);
    expect(h).toHaveLength(LATENCY_BUCKETS);
    expect(histogramPercentile(h, 50)).toBe(605);
    expect(histogramPercentile(h, 95)).toBe(1_005);
    expect(histogramPercentile(h, 0)).toBe(405);
    expect(histogramPercentile([], 50)).toBeNull();
    expect(histogramPercentile(histogramOf([12_345]), 50)).toBe(10_000);
  });

  it("add up, whatever their lengths (an empty histogram is no replies)", () => {
    const sum = addHistograms(addHistograms([], histogramOf([500])), histogramOf([500, 2_500]));
    expect(sum[50]).toBe(2);
    expect(sum[250]).toBe(1);
    expect(sum.reduce((a, b) => a + b, 0)).toBe(3);
    expect(trimmed(histogramOf([25, 40]))).toEqual([0, 0, 1, 0, 1]);
    expect(trimmed(histogramOf([]))).toEqual([]);
  });
});

describe("addToDailyStats", () => {
  it("never throws: a failed upsert is logged, and the call's ending goes on", async () => {
    const failing = {
      insert: () => ({
        values: () => ({ onConflictDoUpdate: () => Promise.reject(new Error("connection reset")) }),
      }),
    } as unknown as Db;
    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const owner = { organizationId: "o", createdAt: new Date(), agentId: null, agentName: "Desk" };
    await expect(addToDailyStats(failing, owner, { calls: 1 })).resolves.toBeUndefined();
    expect(logged).toHaveBeenCalledWith(expect.stringContaining('"msg":"call daily figures not updated"'));
    expect(logged.mock.calls[0]?.[0]).toContain("connection reset");
    logged.mockRestore();
  });
});
