/** @jsxImportSource hono/jsx */
// The Webhooks list: each endpoint, where it delivers now, its events, its state and a toggle.
import type { FC } from "hono/jsx";
import type { EndpointView } from "../../webhooks/endpoints";
import { DataTable, EmptyState, Flash, Layout, type Shell } from "../ui";
import { WEBHOOKS_CSS } from "../ui/assets/built";
import { BASE, StateBadge, ToggleForm, targetOf } from "./parts";

export const EndpointList: FC<{ shell: Shell; endpoints: EndpointView[]; next: string | null; notice?: string }> = ({
  shell,
  endpoints,
  next,
  notice,
}) => (
  <Layout
    shell={shell}
    css={WEBHOOKS_CSS}
    actions={
      <a class="button" href={`${BASE}/new`}>
        New endpoint
      </a>
    }
  >
    {notice ? <Flash>{notice}</Flash> : null}
    <p class="muted small mt0">
      Signed HTTP POSTs to your receivers when calls, widget chats and messaging sessions start, end, fail or are analyzed. See{" "}
      <a href="/docs">the API reference</a> for verifying signatures.
    </p>
    <DataTable
      rows={endpoints}
      stack
      empty={<EmptyState action={{ href: `${BASE}/new`, label: "Create the first one" }}>No webhook endpoints yet.</EmptyState>}
      columns={[
        {
          header: "Name",
          cell: (e) => (
            <>
              <a href={`${BASE}/${e.id}`}>{e.name}</a>
              {e.description ? <div class="muted small">{e.description}</div> : null}
            </>
          ),
        },
        {
          header: "Delivers to",
          label: "Delivers to",
          class: "target",
          cell: (e) => {
            const target = targetOf(e);
            return (
              <>
                <div class="small">{target.label}</div>
                <code class="wrap">{target.url}</code>
              </>
            );
          },
        },
        {
          header: "Events",
          label: "Events",
          class: "small",
          cell: (e) => (
            <>
              {e.events.length === 0 ? <span class="muted">none</span> : `${e.events.length} of ${e.channels.join(", ")}`}
              {e.payloadMode === "custom" ? <div class="muted">custom fields ({e.customFields.length})</div> : null}
            </>
          ),
        },
        { header: "State", label: "State", cell: (e) => <StateBadge e={e} /> },
        { header: <span class="muted">Action</span>, cell: (e) => <ToggleForm csrf={shell.csrf} e={e} from="list" /> },
      ]}
    />
    {next ? (
      <p>
        <a href={`${BASE}?cursor=${encodeURIComponent(next)}`}>Older endpoints</a>
      </p>
    ) : null}
  </Layout>
);
