/** @jsxImportSource hono/jsx */
// Times are UTC and say so (docs/dashboard.md).
import type { FC } from "hono/jsx";

/** A moment as text, in UTC and saying so: "2025-01-31 09:05:12 UTC" ("—" when absent). */
export const when = (d: Date | string | null | undefined) => (d ? `${new Date(d).toISOString().replace("T", " ").slice(0, 19)} UTC` : "—");

/** A moment on the page: `when`'s text in a <time> whose `datetime` is the instant (ISO 8601, UTC). */
export const When: FC<{ at: Date | string | null | undefined }> = ({ at }) =>
  at ? <time datetime={new Date(at).toISOString()}>{when(at)}</time> : <>—</>;

/** The wall-clock time of a moment (UTC, hh:mm:ss): the turns of a call's and a chat's transcript. */
export const clock = (d: Date | string) => new Date(d).toISOString().slice(11, 19);
