// Builds the embeddable widget: widget/src → public/widget.js (one minified IIFE), which the
// worker serves as a static asset (wrangler.toml [assets]; headers in public/_headers).
// Run by `npm run widget:build` (and before dev, test, build and deploy), and by the test stack.
// Fails when the gzipped bundle passes the budget.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

export const WIDGET_OUT = fileURLToPath(new URL("../public/widget.js", import.meta.url));
/** The budget: under 30 KB gzipped. */
export const GZIP_BUDGET = 30 * 1024;

export async function buildWidget(): Promise<{ bytes: number; gzipBytes: number }> {
  await build({
    entryPoints: [fileURLToPath(new URL("./src/index.ts", import.meta.url))],
    outfile: WIDGET_OUT,
    bundle: true,
    minify: true,
    format: "iife",
    // Browsers of the last few years; shadow DOM and AudioWorklet need them anyway.
    target: ["chrome90", "firefox90", "safari15", "edge90"],
    legalComments: "none",
    logLevel: "warning",
  });
  const code = readFileSync(WIDGET_OUT);
  const result = { bytes: code.length, gzipBytes: gzipSync(code, { level: 9 }).length };
  if (result.gzipBytes > GZIP_BUDGET)
    throw new Error(`widget.js is ${result.gzipBytes} bytes gzipped, over the ${GZIP_BUDGET}-byte budget`);
  return result;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { bytes, gzipBytes } = await buildWidget();
  console.log(`widget: public/widget.js ${bytes} bytes, ${gzipBytes} bytes gzipped (budget ${GZIP_BUDGET})`);
}
