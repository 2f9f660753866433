// A Lua script on Upstash Redis, run by its SHA: EVALSHA sends 40 characters instead of the
// script, and EVAL runs once per Redis that does not know the script yet (NOSCRIPT), which also
// loads it there. The SHA is computed once per isolate, not per call as `redis.createScript` would.
import type { Redis } from "@upstash/redis/cloudflare";
import { sha1Hex } from "./crypto";

/** What a script needs of a client: the two commands (a real client, or a test's stand-in). */
export type ScriptRunner = Pick<Redis, "eval" | "evalsha">;

export interface LuaScript<T> {
  readonly source: string;
  /** One round trip in the steady state; two the first time a Redis sees the script. */
  run(redis: ScriptRunner, keys: string[], args: string[]): Promise<T>;
}

export function luaScript<T>(source: string): LuaScript<T> {
  let sha: Promise<string> | undefined;
  return {
    source,
    async run(redis, keys, args) {
      sha ??= sha1Hex(source);
      const out = await redis.evalsha(await sha, keys, args).catch((err: Error) => {
        if (!/NOSCRIPT/i.test(err.message)) throw err;
        return redis.eval(source, keys, args);
      });
      return out as T;
    },
  };
}
