/** @jsxImportSource hono/jsx */
// An agent's page, "Versions": its newest versions (number, time, who, what changed, linking to the
// comparison with the one before), the live one marked; a newer one can be published, an older one
// rolled back to (a new version with its configuration), after a confirmation. Posts to
// /dashboard/agents/:id/publish and …/rollback (docs/agents.md, "Versions"); compares on
// …/versions/diff (./version-diff.tsx).
import type { FC } from "hono/jsx";
import type { Agent } from "../../agents/service";
import type { ListedVersion } from "../../agents/versions";
import { Badge, Csrf, DataTable, When } from "../ui";

const who = (v: ListedVersion) =>
  v.createdByType === "system"
    ? "platform"
    : (v.createdByName ?? (v.createdByType === "api_key" ? "an API key (revoked)" : "a former member"));

/** "Version 3 (live)", "Version 4 (draft)", "Version 2". */
export const versionName = (agent: Pick<Agent, "liveVersion">, version: number) =>
  `Version ${version}${version === agent.liveVersion ? " (live)" : version > agent.liveVersion ? " (draft)" : ""}`;

export const diffHref = (agent: Pick<Agent, "id">, from: number, to: number) =>
  `/dashboard/agents/${agent.id}/versions/diff?from=${from}&to=${to}`;

export const VersionAction: FC<{ agent: Agent; version: number; csrf: string }> = ({ agent, version, csrf }) => {
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
      published.{" "}
      {agent.latestVersion > 1 ? (
        <a
          href={
            agent.latestVersion > agent.liveVersion
              ? diffHref(agent, agent.liveVersion, agent.latestVersion)
              : diffHref(agent, agent.latestVersion - 1, agent.latestVersion)
          }
        >
          {agent.latestVersion > agent.liveVersion ? "Compare the newest draft with the live version" : "Compare versions"}
        </a>
      ) : null}
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
          cell: (v) =>
            v.version === 1 ? (
              "created"
            ) : (
              <>
                {v.changes.join(", ") || "nothing"}{" "}
                <a href={diffHref(agent, v.version - 1, v.version)}>
                  Compare
                  <span class="sr">
                    {" "}
                    version {v.version} with version {v.version - 1}
                  </span>
                </a>
              </>
            ),
          class: "small",
          label: "Changed",
        },
        { header: "", cell: (v) => <VersionAction agent={agent} version={v.version} csrf={csrf} /> },
      ]}
    />
  </section>
);
