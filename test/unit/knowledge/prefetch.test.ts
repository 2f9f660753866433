// The knowledge prefetch of a call (src/knowledge/prefetch.ts): searches as the caller's words grow,
// one at a time with the latest words waiting, and hands the reply a search that covers its turn.
import { describe, expect, it } from "vitest";
import { covers, KnowledgePrefetch } from "../../../src/knowledge/prefetch";
import type { Passage } from "../../../src/knowledge/search";

const passage = (content: string) => ({ content }) as Passage;

function searcher() {
  const asked: string[] = [];
  const pending: Array<() => void> = [];
  const find = (text: string) => {
    asked.push(text);
    return new Promise<Passage[]>((resolve) => pending.push(() => resolve([passage(text)])));
  };
  const settle = async () => {
    while (pending.length) pending.shift()?.();
    await new Promise((r) => setTimeout(r, 0));
  };
  return { asked, find, settle };
}

describe("covers", () => {
  it("holds when most of the turn's words were searched, in any case", () => {
    expect(covers("How much does a cleaning", "how much does a cleaning cost")).toBe(true);
    expect(covers("How much", "how much does a cleaning cost")).toBe(false);
    expect(covers("anything", "")).toBe(false);
  });
});

describe("KnowledgePrefetch", () => {
  it("searches once there are words enough, again as they grow, one search at a time with the latest waiting", async () => {
    const s = searcher();
    const p = new KnowledgePrefetch(s.find);
    p.hint("How");
    p.hint("How much");
    expect(s.asked).toEqual([]);
    p.hint("How much does");
    expect(s.asked).toEqual(["How much does"]);
    p.hint("How much does a");
    p.hint("How much does a cleaning");
    p.hint("How much does a cleaning cost");
    expect(s.asked).toEqual(["How much does"]);
    await s.settle();
    expect(s.asked).toEqual(["How much does", "How much does a cleaning cost"]);
    await s.settle();
    const taken = p.take("How much does a cleaning cost?");
    expect(taken).not.toBeNull();
    expect((await taken)?.[0]?.content).toBe("How much does a cleaning cost");
    expect(p.searches).toBe(2);
  });

  it("gives the reply nothing when the search does not cover the turn, and starts afresh after a turn", async () => {
    const s = searcher();
    const p = new KnowledgePrefetch(s.find);
    p.hint("Where can I park");
    await s.settle();
    expect(p.take("Where can I park my car and how much is a cleaning and a whitening")).toBeNull();
    expect(p.take("Where can I park")).toBeNull(); // taken already: the next turn starts from nothing
  });

  it("a failed search is the reply's to redo: no unhandled rejection, the next words search again", async () => {
    const p = new KnowledgePrefetch(() => Promise.reject(new Error("provider down")));
    p.hint("How much does it cost");
    await new Promise((r) => setTimeout(r, 0));
    await expect(p.take("How much does it cost") as Promise<Passage[]>).rejects.toThrow("provider down");
  });
});
