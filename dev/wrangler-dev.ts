// The worker under wrangler's dev server, in a process of its own: started by dev/stack.ts
// startWorker (`npm run dev`, the integration tests) with its settings in WRANGLER_DEV_SPEC.
// What `wrangler dev` does (wrangler.toml, its build, watching the sources and the config, the
// local Durable Objects and R2 under `persistTo`, /__scheduled), through wrangler's programmatic
// dev server, because its CLI has no way to leave the inspector out: `wrangler dev` always runs
// wrangler's inspector proxy and turns on the DevTools Network domain, and every subrequest (each
// fetch() to Redis, to the SQL endpoint, to a provider) then costs 4 to 6 ms more
// (docs/benchmarks.md, "No inspector"). The inspector is on only when asked for (`inspectorPort`:
// `npm run dev -- --inspect`).
import { once } from "node:events";
import { mkdtempSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

export interface WranglerDevSpec {
  port: number;
  /** Worker variables, as plain-text bindings (`wrangler dev --var`). */
  vars: Record<string, string>;
  persistTo: string;
  logLevel: string;
  /** wrangler's inspector (Chrome DevTools) on 127.0.0.1 at this port; omitted: no inspector. */
  inspectorPort?: number;
  /** Rebuild and reload on changes to the sources, assets and config (`npm run dev`). */
  watch: boolean;
  /** Another entry than wrangler.toml's `main`, and its name. */
  script?: string;
  name?: string;
}

export const SPEC_VARIABLE = "WRANGLER_DEV_SPEC";

/** An error as wrangler reports it: an Error, or an error event of its dev server ({ reason, cause }). */
const describe = (err: unknown): string => {
  if (err instanceof Error) return `${err.message}${err.cause instanceof Error ? `: ${err.cause.message}` : ""}`;
  const event = err as { reason?: string; cause?: { message?: string } };
  return [event.reason, event.cause?.message].filter(Boolean).join(": ") || String(err);
};

/**
 * wrangler's build setting for a worker that never reloads. Its dev bundler always watches the
 * sources through esbuild (`dev.watch: false` only stops the config watcher), so a worker under
 * test or bench rebuilt and reloaded when a file changed, and wrangler's proxy answered the
 * requests in flight with a bare 503. A "custom build" whose command does nothing and that
 * watches an empty folder makes wrangler bundle the sources once, with the same esbuild step, and
 * never again.
 */
export const buildOnce = () => ({ custom: { command: 'node -e ""', watch: mkdtempSync(join(tmpdir(), "wrangler-build-once-")) } });

async function serve(spec: WranglerDevSpec): Promise<void> {
  // require(), not import(): through tsx's loader, import() of wrangler's 10 MB bundle takes two
  // seconds longer (3.2 s against 1.2 s on a 2-core machine), at every start of every test worker.
  const { unstable_DevEnv } = createRequire(import.meta.url)("wrangler") as typeof import("wrangler");
  const devEnv = new unstable_DevEnv();
  const worker = await devEnv.startWorker({
    config: `${ROOT}wrangler.toml`,
    ...(spec.script && { entrypoint: spec.script, name: spec.name ?? "worker" }),
    bindings: Object.fromEntries(Object.entries(spec.vars).map(([k, v]) => [k, { type: "plain_text" as const, value: v }])),
    ...(!spec.watch && { build: buildOnce() }),
    dev: {
      server: { hostname: "127.0.0.1", port: spec.port },
      inspector: spec.inspectorPort ? { hostname: "127.0.0.1", port: spec.inspectorPort } : false,
      persist: spec.persistTo,
      watch: spec.watch,
      testScheduled: true,
      logLevel: spec.logLevel as "warn",
    },
  });
  const stop = () => {
    worker.dispose().finally(() => process.exit(0));
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  // As `wrangler dev` does: run until the dev server is torn down; an error it emits (the port
  // taken, the runtime failing to start) rejects this, and the process exits 1 saying why.
  await once(devEnv, "teardown");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const raw = process.env[SPEC_VARIABLE];
  if (!raw) {
    console.error(`dev/wrangler-dev.ts is started by dev/stack.ts startWorker(), with ${SPEC_VARIABLE}`);
    process.exit(2);
  }
  serve(JSON.parse(raw) as WranglerDevSpec).then(
    () => process.exit(0),
    (err: unknown) => {
      // startWorker recognises "Address already in use" in the message.
      console.error(`✘ [ERROR] ${describe(err)}`);
      process.exit(1);
    },
  );
}
