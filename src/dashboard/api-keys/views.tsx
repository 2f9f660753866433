/** @jsxImportSource hono/jsx */
// The API Keys screen: the key created (shown once), the create form with rotation guidance, the
// list (masked prefix, created, last used, state) with revoke behind a confirmation.
import type { FC } from "hono/jsx";
import type { ApiKeyView } from "../../api-keys/service";
import {
  Badge,
  Csrf,
  DataTable,
  EmptyState,
  ErrorSummary,
  type FieldErrors,
  Flash,
  Layout,
  Secret,
  type Shell,
  TextField,
  When,
} from "../ui";

export interface ApiKeysProps {
  shell: Shell;
  keys: ApiKeyView[];
  created?: { name: string; secret: string };
  errors?: FieldErrors;
  name?: string;
  notice?: string;
}

export const ApiKeys: FC<ApiKeysProps> = ({ shell, keys, created, errors, name, notice }) => (
  <Layout shell={shell}>
    {created ? (
      <Secret
        id="new-key"
        value={created.secret}
        warning={`Key "${created.name}" created. Copy it now: this is the only time the full key is shown. Store it in your secret manager.`}
      />
    ) : null}
    {notice ? <Flash>{notice}</Flash> : null}
    <div class="card">
      <h2 class="mt0">Create a key</h2>
      <ErrorSummary errors={errors} />
      <form method="post" action="/dashboard/api-keys" class="row" novalidate>
        <Csrf token={shell.csrf} />
        <div class="grow">
          <TextField name="name" label="Key Name" value={name} errors={errors} hint="For example: Production backend" required />
        </div>
        <button class="end" type="submit">
          Create key
        </button>
      </form>
      <p class="hint">
        Rotation: create a new key, deploy it, then revoke the old one. The old key's “last used” tells you when nothing uses it any more.
        Keys act as workspace admins on the whole /v1 API.
      </p>
    </div>
    <DataTable
      rows={keys}
      caption={`${keys.length} key${keys.length === 1 ? "" : "s"}`}
      empty={<EmptyState muted>No keys yet: create the first one above.</EmptyState>}
      columns={[
        { header: "Name", cell: (k) => k.name },
        { header: "Key", class: "mono", cell: (k) => k.prefix },
        { header: "Created", cell: (k) => <When at={k.createdAt} /> },
        { header: "Last used", cell: (k) => (k.lastUsedAt ? <When at={k.lastUsedAt} /> : "never") },
        {
          header: "State",
          cell: (k) =>
            k.active ? (
              <Badge tone="good">active</Badge>
            ) : (
              <Badge tone="off">
                revoked <When at={k.revokedAt} />
              </Badge>
            ),
        },
        {
          header: <span class="muted">Action</span>,
          cell: (k) =>
            k.active ? (
              <form
                method="post"
                action={`/dashboard/api-keys/${k.id}/revoke`}
                data-confirm={`Revoke "${k.name}"? Requests with it fail at once; this cannot be undone.`}
              >
                <Csrf token={shell.csrf} />
                <button type="submit" class="danger" aria-label={`Revoke ${k.name}`}>
                  Revoke
                </button>
              </form>
            ) : null,
        },
      ]}
    />
  </Layout>
);
