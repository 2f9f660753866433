import { configDefaults, defineConfig } from "vitest/config";

// Integration tests run against the real worker (wrangler dev / workerd) on the local stack:
// always on the embedded defaults (PGlite + in-memory Redis bridge), and again on real
// servers when DATABASE_URL and REDIS_URL are set (CI sets them to its PostgreSQL and Redis).
const real = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);
if (!real && !process.env.PLATFORM_TEST_NOTICE) {
  process.env.PLATFORM_TEST_NOTICE = "1"; // the config is loaded again in workers: say it once
  console.log("notice: integration suite on real PostgreSQL/Redis skipped (set DATABASE_URL and REDIS_URL to run it)");
}

/**
 * Files whose subject does not change with the Postgres and Redis behind the worker: the dashboard and
 * the widget in Chromium (their data paths are the API's, which the real-server pass covers), and the
 * SDK built and run as a user installs it. They run once, on the embedded stack: on real servers they
 * took about 250 s of a CI run that has to stay under 40 minutes on 2 cores, where vitest runs one
 * file at a time.
 */
const BACKEND_INDEPENDENT = [
  "test/integration/**/*browser.test.ts",
  "test/integration/sdk/readme.test.ts",
  "test/integration/sdk/runtimes.test.ts",
];

const integration = (name: string, backend: "embedded" | "real") => ({
  extends: true as const,
  test: {
    name,
    include: ["test/integration/**/*.test.ts"],
    exclude: backend === "real" ? [...configDefaults.exclude, ...BACKEND_INDEPENDENT] : configDefaults.exclude,
    globalSetup: ["test/setup/stack.ts"],
    // Every /v1 and /webhooks JSON response is checked against the OpenAPI document.
    setupFiles: ["test/setup/contract.ts"],
    env: { TEST_BACKEND: backend },
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // expect.poll waits for what the worker and the browser do in their own time (a document processed, a
    // row updated): 1 s, vitest's default, is a timing bet on a busy CI machine; the test's own timeout bounds it.
    expect: { poll: { timeout: 20_000, interval: 50 } },
  },
});

export default defineConfig({
  test: {
    projects: [
      // Pure code of src/ (test/unit/<area>/, mirroring src/) and the local stand-ins of dev/ (test/dev/).
      { extends: true, test: { name: "unit", include: ["test/unit/**/*.test.ts", "test/dev/**/*.test.ts"] } },
      integration("integration", "embedded"),
      ...(real ? [integration("integration-real", "real")] : []),
    ],
  },
});
