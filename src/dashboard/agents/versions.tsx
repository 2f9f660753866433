/** @jsxImportSource hono/jsx */
// An agent's page, "Versions": its newest versions (number, time, who, what changed), the live one
// marked; a newer one can be published, an older one rolled back to (a new version with its
// configuration). Posts to /dashboard/agents/:id/publish and …/rollback (docs/agents.md, "Versions").
import type { FC } from "hono/jsx";
import type { Agent } from "../../agents/service";
import type { ListedVersion } from "../../agents/versions";
import { Badge, Csrf, DataTable, When } from "../ui";

const who = (v: ListedVersion) =>
  v.createdByType === "system"
    ? "platform"
    : (v.createdByName ?? (v.createdByType === "api_key" ? "an API key (revoked)" : "a former member"));

const VersionAction: FC<{ agent: Agent; version: number; csrf: string }> = ({ agent, version, csrf }) => {
  if (version === agent.liveVersion) return <Badge tone="good">live</Badge>;
  const publish = version > agent.liveVersion;
  return (
    <form
      method="post"
      action={`/dashboard/agents/${agent.id}/${publish ? "publish" : "rollback"}`}
      data-confirm={
        publish ? `Make version ${version} live?` : `Roll back to version ${version}? Its configuration becomes a new, live version.`
      }
    >
      <Csrf token={csrf} />
      <input type="hidden" name="version" value={String(version)} />
      <button type="submit" class="secondary small-button">
        {publish ? "Publish" : "Roll back"}
      </button>
    </form>
  );
};

export const VersionList: FC<{ agent: Agent; versions: ListedVersion[]; csrf: string }> = ({ agent, versions, csrf }) => (
  <section id="versions" aria-labelledby="versions-heading">
    <h2 id="versions-heading">Versions</h2>
    <p class="small muted">
      Live: version {agent.liveVersion} of {agent.latestVersion}. Calls and chats run with the live version; a draft waits until it is
      published.
    </p>
    <DataTable
      stack
      rows={versions}
      columns={[
        { header: "Version", cell: (v) => String(v.version), label: "Version" },
        { header: "Made", cell: (v) => <When at={v.createdAt} />, class: "small", label: "Made" },
        { header: "By", cell: who, class: "small", label: "By" },
        {
          header: "Changed",
          cell: (v) => (v.version === 1 ? "created" : v.changes.join(", ") || "nothing"),
          class: "small",
          label: "Changed",
        },
        { header: "", cell: (v) => <VersionAction agent={agent} version={v.version} csrf={csrf} /> },
      ]}
    />
  </section>
);
