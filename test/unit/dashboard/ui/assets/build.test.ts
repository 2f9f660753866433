// The dashboard's styles and scripts are files built by esbuild (src/dashboard/ui/assets/build.ts)
// into built.js, which the pages inline with their CSP nonce: the build declares what built.d.ts
// says, nothing in it can end its <script> or <style> early, the webhook form's preview bundles
// the server's own shapePayload, and a built.js on disk is the build of the current sources.
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DASHBOARD_ASSETS, DASHBOARD_ASSETS_OUT, renderDashboardAssets } from "../../../../../src/dashboard/ui/assets/build";

const declared = readFileSync(new URL("../../../../../src/dashboard/ui/assets/built.d.ts", import.meta.url), "utf8");

describe("dashboard assets", async () => {
  const text = await renderDashboardAssets();
  const exports = new Map(
    [...text.matchAll(/^export const (\w+) = (".*");$/gm)].map(([, name, value]) => [name, JSON.parse(value as string)]),
  );

  it("builds every asset that built.d.ts declares, and no other", () => {
    const names = [...declared.matchAll(/export declare const (\w+): string;/g)].map((m) => m[1]);
    expect([...exports.keys()].sort()).toEqual(names.sort());
    expect(Object.keys(DASHBOARD_ASSETS).sort()).toEqual(names.sort());
    for (const [name, code] of exports) expect(code.length, name).toBeGreaterThan(100);
  });

  it("keeps every asset inlinable: no closing tag and no comment opener", () => {
    for (const [name, code] of exports) expect(code, name).not.toMatch(/<\/(script|style)|<!--/i);
  });

  it("bundles the webhook form's script with src/webhooks/payload.ts (no copy of shapePayload)", () => {
    const form = exports.get("WEBHOOK_FORM_JS") as string;
    expect(form).toMatch(/^"use strict";\(\(\)=>\{/); // one IIFE
    // payload.ts's own constants came with it: the envelope and the leaf paths.
    expect(form).toContain('["deliveryId","event","timestamp"]');
    expect(form).toContain('"report.extractedData"');
    expect(readFileSync(new URL("../../../../../src/dashboard/ui/assets/webhook-form.ts", import.meta.url), "utf8")).toContain(
      'import { type Payload, shapePayload } from "../../../webhooks/payload";',
    );
  });

  it.runIf(existsSync(DASHBOARD_ASSETS_OUT))("finds built.js up to date with its sources (npm run widget:build)", () => {
    expect(readFileSync(DASHBOARD_ASSETS_OUT, "utf8") === text, "src/dashboard/ui/assets/built.js is stale: run npm run widget:build").toBe(
      true,
    );
  });
});
