/** @jsxImportSource hono/jsx */
// EmptyState: what a list with nothing in it says, and the first step when there is one
// (docs/dashboard.md: "Empty states").
import type { Child, FC } from "hono/jsx";

export const EmptyState: FC<{ children?: Child; action?: { href: string; label: string }; muted?: boolean }> = ({
  children,
  action,
  muted,
}) => (
  <p class={muted ? "empty muted" : "empty"}>
    {children}
    {action ? (
      <>
        {" "}
        <a href={action.href}>{action.label}</a>.
      </>
    ) : null}
  </p>
);
