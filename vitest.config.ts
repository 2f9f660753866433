import { defineConfig } from "vitest/config";

// Integration tests run against the real worker (wrangler dev / workerd) on the local stack:
// always on the embedded defaults (PGlite + in-memory Redis bridge), and again on real
// servers when DATABASE_URL and REDIS_URL are set (CI sets them to its PostgreSQL and Redis).
const real = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);
if (!real && !process.env.PLATFORM_TEST_NOTICE) {
  process.env.PLATFORM_TEST_NOTICE = "1"; // the config is loaded again in workers: say it once
  console.log("notice: integration suite on real PostgreSQL/Redis skipped (set DATABASE_URL and REDIS_URL to run it)");
}

const integration = (name: string, backend: "embedded" | "real") => ({
  extends: true as const,
  test: {
    name,
    include: ["test/integration/**/*.test.ts"],
    globalSetup: ["test/setup/stack.ts"],
    // Every /v1 and /webhooks JSON response is checked against the OpenAPI document.
    setupFiles: ["test/setup/contract.ts"],
    env: { TEST_BACKEND: backend },
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});

export default defineConfig({
  test: {
    // Two test files at a time (vitest's default on 2 cores is one): an integration file mostly waits
    // on real time (a call's audio, a browser), so one file at a time left a core idle and the suite
    // past CI's 40 minutes. Each file uses workspaces of its own on the project's stack.
    maxWorkers: 2,
    projects: [
      // Pure code of src/ (test/unit/<area>/, mirroring src/) and the local stand-ins of dev/ (test/dev/).
      { extends: true, test: { name: "unit", include: ["test/unit/**/*.test.ts", "test/dev/**/*.test.ts"] } },
      integration("integration", "embedded"),
      ...(real ? [integration("integration-real", "real")] : []),
    ],
  },
});
