// A Lua script run by its SHA (src/lib/redis-script.ts): EVALSHA first, EVAL only when Redis answers
// NOSCRIPT, and any other failure passed on (the limiters then fail open).
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { luaScript, type ScriptRunner } from "../../../src/lib/redis-script";

/** A stand-in client that records the commands and answers `evalsha` with `shaAnswer`. */
function recording(shaAnswer: () => Promise<unknown>) {
  const calls: string[][] = [];
  const redis = {
    evalsha: async (sha: string, keys: string[], args: unknown[]) => {
      calls.push(["EVALSHA", sha, ...keys, ...args.map(String)]);
      return shaAnswer();
    },
    eval: async (script: string, keys: string[], args: unknown[]) => {
      calls.push(["EVAL", script, ...keys, ...args.map(String)]);
      return "from eval";
    },
  } as ScriptRunner;
  return { redis, calls };
}

describe("luaScript", () => {
  const source = "return {KEYS[1], ARGV[1]}";
  const sha = createHash("sha1").update(source).digest("hex");

  it("runs by the script's SHA-1 when Redis knows it", async () => {
    const { redis, calls } = recording(async () => "from evalsha");
    expect(await luaScript(source).run(redis, ["k"], ["a"])).toBe("from evalsha");
    expect(calls).toEqual([["EVALSHA", sha, "k", "a"]]);
  });

  it("sends the script once when Redis answers NOSCRIPT", async () => {
    const { redis, calls } = recording(async () => {
      throw new Error("NOSCRIPT No matching script. Please use EVAL.");
    });
    expect(await luaScript(source).run(redis, ["k"], ["a"])).toBe("from eval");
    expect(calls).toEqual([
      ["EVALSHA", sha, "k", "a"],
      ["EVAL", source, "k", "a"],
    ]);
  });

  it("passes any other failure on, without sending the script", async () => {
    const { redis, calls } = recording(async () => {
      throw new Error("fetch failed");
    });
    await expect(luaScript(source).run(redis, ["k"], ["a"])).rejects.toThrow("fetch failed");
    expect(calls).toHaveLength(1);
  });
});
