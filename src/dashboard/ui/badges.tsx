/** @jsxImportSource hono/jsx */
// Badges: a short state in a pill. `tone` is how it reads at a glance: good (green), bad (red),
// off (grey); none is the accent.
import type { Child, FC } from "hono/jsx";

export type Tone = "good" | "bad" | "off" | "";

export const Badge: FC<{ tone?: Tone; children?: Child }> = ({ tone = "", children }) => (
  <span class={tone ? `badge ${tone}` : "badge"}>{children}</span>
);
