// Which of the worker's configuration variables `npm run dev` takes from its environment. The
// list is the worker's own schema (src/env.ts), which README's configuration table documents
// (test/dev/worker-env.test.ts keeps the two equal), so a new variable needs no change here.
import { envSchema } from "../src/env";

export type WorkerVariable = keyof typeof envSchema.shape;

/** Every variable of the worker's configuration. */
export const WORKER_VARIABLES = Object.keys(envSchema.shape) as WorkerVariable[];

/**
 * Set by the local stack itself, never taken from the environment: the stand-ins for Neon's two
 * doors and the Upstash bridge (the admin CLI and the tests reach the same ones). DATABASE_URL is
 * not here: `npm run dev` makes it the stack's database, so it reaches the worker that way.
 */
export const STACK_VARIABLES: readonly WorkerVariable[] = [
  "DATABASE_WS_PROXY",
  "DATABASE_HTTP_ENDPOINT",
  "UPSTASH_REDIS_REST_URL",
  "UPSTASH_REDIS_REST_TOKEN",
];

/** Credentials and anything else whose value is never printed (OTEL_EXPORTER_OTLP_HEADERS carries the collector's API key). */
export const isSecret = (name: string): boolean => /KEY|TOKEN|SECRET|PASSWORD|HEADERS/.test(name);

export interface WorkerEnvironment {
  /** name → value, for the worker (`--var`). */
  vars: Partial<Record<WorkerVariable, string>>;
  /** Set in the environment but provided by the stack (STACK_VARIABLES). */
  ignored: WorkerVariable[];
  /** Values the worker would refuse: the variable and the rule, never the value. */
  invalid: Array<{ name: WorkerVariable; rule: string }>;
}

/**
 * The worker's variables set (non-empty) in `env`, each checked against its rule in the worker's
 * schema, so a bad value stops `npm run dev` at once instead of failing every request with
 * `500 misconfigured`. Rules between variables (QStash's) are left to the worker.
 */
export function workerEnvironment(env: NodeJS.ProcessEnv, skip: readonly string[] = []): WorkerEnvironment {
  const result: WorkerEnvironment = { vars: {}, ignored: [], invalid: [] };
  for (const name of WORKER_VARIABLES) {
    const value = env[name]?.trim();
    if (!value || skip.includes(name)) continue;
    if (STACK_VARIABLES.includes(name)) {
      result.ignored.push(name);
      continue;
    }
    const parsed = envSchema.shape[name].safeParse(value);
    if (!parsed.success) {
      result.invalid.push({ name, rule: parsed.error.issues[0]?.message ?? "invalid" });
      continue;
    }
    result.vars[name] = value;
  }
  return result;
}

/** How a variable's value is shown in the terminal: secrets hidden, passwords in URLs masked. */
export function shownValue(name: string, value: string): string {
  if (isSecret(name)) return "(set, hidden)";
  try {
    const url = new URL(value);
    if (url.password) {
      url.password = "****";
      return url.toString();
    }
  } catch {
    // not a URL
  }
  return value;
}
