// Builds the embeddable widget: widget/src → public/widget.js (one minified IIFE), which the
// worker serves as a static asset (wrangler.toml [assets]; headers in public/_headers); and, in
// the same step, the dashboard's styles and scripts (src/dashboard/ui/assets/build.ts → built.js,
// which the worker imports). Run by `npm run widget:build` (and before dev, test, bench, build and
// deploy), and by the test stack. Fails when the widget's gzipped bundle passes the budget.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { buildDashboardAssets } from "../src/dashboard/ui/assets/build";

export const WIDGET_OUT = fileURLToPath(new URL("../public/widget.js", import.meta.url));
/** The budget: under 30 KB gzipped. */
export const GZIP_BUDGET = 30 * 1024;

/**
 * Builds to `outfile` (public/widget.js by default), then the dashboard's assets, which the
 * worker cannot start without. Files are written only when they change: a running
 * `wrangler dev` reloads on every write to its assets folder and its sources.
 */
export async function buildWidget(outfile = WIDGET_OUT): Promise<{ bytes: number; gzipBytes: number }> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL("./src/index.ts", import.meta.url))],
    outfile,
    write: false,
    bundle: true,
    minify: true,
    format: "iife",
    // Browsers of the last few years; shadow DOM and AudioWorklet need them anyway.
    target: ["chrome90", "firefox90", "safari15", "edge90"],
    legalComments: "none",
    logLevel: "warning",
  });
  const code = result.outputFiles[0]?.contents;
  if (!code) throw new Error("esbuild produced no output");
  const sizes = { bytes: code.length, gzipBytes: gzipSync(code, { level: 9 }).length };
  if (sizes.gzipBytes > GZIP_BUDGET) throw new Error(`widget.js is ${sizes.gzipBytes} bytes gzipped, over the ${GZIP_BUDGET}-byte budget`);
  const current = existsSync(outfile) ? readFileSync(outfile) : null;
  if (!current?.equals(code)) {
    mkdirSync(dirname(outfile), { recursive: true });
    writeFileSync(outfile, code);
  }
  await buildDashboardAssets();
  return sizes;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { bytes, gzipBytes } = await buildWidget();
  console.log(`widget: public/widget.js ${bytes} bytes, ${gzipBytes} bytes gzipped (budget ${GZIP_BUDGET}); dashboard assets built`);
}
