// The import rules of docs/architecture.md that Biome cannot state: no import circle in src/ (type
// imports included), src/lib imports nothing of ours, src/db imports only src/lib, and the
// providers are reached only through the context (src/services.ts makes them). Read from the
// sources as text: every relative `import … from` and `export … from`.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SRC = join(ROOT, "src");

const sources = (readdirSync(SRC, { recursive: true, encoding: "utf8" }) as string[])
  .filter((f) => /\.tsx?$/.test(f) && !f.endsWith(".d.ts"))
  .map((f) => join(SRC, f));

const FROM = /^(?:import|export)\s[^;]*?\sfrom\s+"(\.[^"]+)"/gms;
/** Value imports only: `import type { … }` and `export type { … }` carry no code. */
const VALUE_FROM = /^(?:import|export)\s(?!type\s)[^;]*?\sfrom\s+"(\.[^"]+)"/gms;

function resolve(file: string, spec: string): string | null {
  const base = normalize(join(dirname(file), spec));
  for (const c of [`${base}.ts`, `${base}.tsx`, join(base, "index.ts"), join(base, "index.tsx")]) if (existsSync(c)) return c;
  return null;
}

const graph = new Map<string, string[]>(
  sources.map((file) => [
    file,
    [...readFileSync(file, "utf8").matchAll(FROM)].map((m) => resolve(file, m[1] as string)).filter((t): t is string => t !== null),
  ]),
);

/** Strongly connected components of more than one file, or a file importing itself (Tarjan). */
function circles(): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        onStack.delete(w);
        component.push(relative(ROOT, w));
      } while (w !== v);
      if (component.length > 1 || graph.get(v)?.includes(v)) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

const importsOf = (folder: string) =>
  [...graph]
    .filter(([file]) => file.startsWith(join(SRC, folder, "/")))
    .flatMap(([file, targets]) => targets.map((t) => [file, t] as const));

describe("imports in src/", () => {
  it("reads the sources it checks", () => {
    expect(sources.length).toBeGreaterThan(200);
    expect(graph.get(join(SRC, "app.ts"))).toContain(join(SRC, "context.ts"));
  });

  it("form no circle, type imports included", () => {
    expect(circles()).toEqual([]);
  });

  it("src/lib imports nothing of ours outside src/lib; src/db only src/db and src/lib", () => {
    const outside = (folder: string, allowed: string[]) =>
      importsOf(folder)
        .filter(([, t]) => !allowed.some((a) => t.startsWith(join(SRC, a, "/"))))
        .map(([f, t]) => `${relative(ROOT, f)} → ${relative(ROOT, t)}`);
    expect(outside("lib", ["lib"])).toEqual([]);
    expect(outside("db", ["db", "lib"])).toEqual([]);
  });

  it("reaches the providers only through the context: src/services.ts alone makes them from the registry", () => {
    const registry = join(SRC, "providers", "registry.ts");
    const makers = sources
      .filter((file) => !file.startsWith(join(SRC, "providers", "/")))
      .filter((file) => [...readFileSync(file, "utf8").matchAll(VALUE_FROM)].some((m) => resolve(file, m[1] as string) === registry))
      .map((file) => relative(ROOT, file));
    expect(makers).toEqual(["src/services.ts"]);
  });
});
