/** @jsxImportSource hono/jsx */
// What a page tells the user beside its content: a flash after an action, a secret shown once,
// the admin-access-required explanation.
import type { Child, FC } from "hono/jsx";

export const Flash: FC<{ kind?: "ok" | "error" | "warn"; children?: Child }> = ({ kind = "ok", children }) => (
  <div class={`flash ${kind}`} role={kind === "error" ? "alert" : "status"}>
    {children}
  </div>
);

/** A secret in the response that created it, with a copy button: it is not shown again. */
export const Secret: FC<{ id: string; value: string; warning: string }> = ({ id, value, warning }) => (
  <div class="flash warn" role="status">
    <p class="mt0">
      <strong>{warning}</strong>
    </p>
    <div class="secret">
      <code id={id}>{value}</code>
      <button type="button" class="secondary" data-copy={id}>
        Copy
      </button>
    </div>
  </div>
);

export const AdminRequired: FC<{ permission: string }> = ({ permission }) => (
  <div class="card" role="alert">
    <h2 class="mt0">Admin access required</h2>
    <p>
      This screen needs the <code>{permission}</code> permission, which workspace admins have. Ask an admin of this organization to change
      your role, or switch to an organization where you are an admin.
    </p>
  </div>
);
