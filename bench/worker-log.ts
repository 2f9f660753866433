// Reads wrangler's output as it streams and counts the error lines by kind, so a case with
// failures can say what went wrong (the worker's own log is the only place that says it).
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g");

const shorten = (s: string, n = 110) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** One error line reduced to its kind; null for lines that are not errors. */
export function classify(rawLine: string): string | null {
  const line = rawLine.replace(ANSI, "").trim();
  if (!line) return null;
  if (line.includes("code had hung")) return "workerd canceled the request: the Worker's code hung (waiting on I/O that never came)";
  const json = /\{.*\}/.exec(line)?.[0];
  if (json) {
    try {
      const entry = JSON.parse(json) as { level?: string; message?: string; causes?: string[] };
      if (entry.level === "bench-error" || entry.level === "error") {
        const message = shorten(String(entry.message ?? "").split("\n")[0] ?? "", 70);
        const causes = entry.causes?.length ? ` <- ${entry.causes.join(" <- ")}` : "";
        return shorten(message + causes, 160);
      }
      if (entry.level === "warn") return shorten(`warn: ${entry.message ?? line}`);
      return null;
    } catch {
      // not JSON after all: fall through
    }
  }
  if (/\bERROR\b|✘|Uncaught|too many/i.test(line)) return shorten(line.replace(/^✘\s*\[ERROR\]\s*/, ""));
  return null;
}

export class WorkerLog {
  private partial = "";
  private counts = new Map<string, number>();
  private tail = "";
  /** Times wrangler reloaded the worker because a source file changed (live calls and sockets are cut). */
  reloads = 0;

  /** Feed raw output chunks (wrangler's stdout and stderr). */
  readonly push = (chunk: string): void => {
    this.tail = (this.tail + chunk).slice(-8000);
    const lines = (this.partial + chunk).split("\n");
    this.partial = lines.pop() ?? "";
    for (const line of lines) {
      if (line.includes("Reloading local server")) this.reloads++;
      const kind = classify(line);
      if (kind) this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1);
    }
  };

  /** Error kinds seen since the last call, most frequent first; resets the counts. */
  take(): Array<{ kind: string; count: number }> {
    const out = ranked(this.counts);
    this.counts.clear();
    return out;
  }

  /** Several `take()`s as one: counts of the same kind added, most frequent first. */
  static merge(taken: Array<{ kind: string; count: number }>): Array<{ kind: string; count: number }> {
    const counts = new Map<string, number>();
    for (const { kind, count } of taken) counts.set(kind, (counts.get(kind) ?? 0) + count);
    return ranked(counts);
  }

  lastOutput(): string {
    return this.tail;
  }
}

/** Counts by kind as a list, most frequent first. */
const ranked = (counts: Map<string, number>) => [...counts].map(([kind, count]) => ({ kind, count })).sort((a, b) => b.count - a.count);
