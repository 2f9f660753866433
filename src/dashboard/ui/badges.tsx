/** @jsxImportSource hono/jsx */
// Badges: a short state in a pill. `tone` is how it reads at a glance: good (green), bad (red),
// off (grey); none is the accent.
import type { Child, FC } from "hono/jsx";

export type Tone = "good" | "bad" | "off" | "";

export const Badge: FC<{ tone?: Tone; children?: Child }> = ({ tone = "", children }) => (
  <span class={tone ? `badge ${tone}` : "badge"}>{children}</span>
);

/** A tool turn's outcome (docs/tools.md): how it went, how long it took, the server's status and our request id. */
export const ToolOutcome: FC<{
  tool: { outcome: string; latencyMs: number; statusCode: number | null; requestId: string | null };
}> = ({ tool }) => (
  <>
    <Badge tone={tool.outcome === "ok" ? undefined : "bad"}>tool {tool.outcome === "ok" ? "ok" : tool.outcome.replace("_", " ")}</Badge>{" "}
    <span class="small muted">
      {tool.latencyMs} ms{tool.statusCode !== null ? ` · HTTP ${tool.statusCode}` : ""}
      {tool.requestId ? ` · request ${tool.requestId}` : ""}
    </span>
  </>
);
