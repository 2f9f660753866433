/** @jsxImportSource hono/jsx */
// "Replay against a version", on a call's page and a chat's (docs/dashboard.md, "Agent tests"):
// the versions of the conversation's agent (the live one chosen; drafts and earlier ones too; the
// one the conversation ran with said), posting to …/replay, which starts the replay and opens its page.
import type { FC } from "hono/jsx";
import type { Agent } from "../../agents/service";
import type { ListedVersion } from "../../agents/versions";
import { versionName } from "../agents/versions";
import { Csrf, Select } from "../ui";

/** What the form offers: the agent's newest versions, and the one the conversation ran with (null: before versions). */
export interface ReplayChoices {
  agent: Agent;
  versions: ListedVersion[];
  ranVersion: number | null;
}

export const ReplayForm: FC<{ action: string; what: "call" | "chat"; choices: ReplayChoices; csrf: string }> = ({
  action,
  what,
  choices,
  csrf,
}) => {
  const { agent, versions, ranVersion } = choices;
  return (
    <form method="post" action={action} class="card replay-form" aria-labelledby="replay-heading">
      <h2 id="replay-heading" class="mt0">
        Replay against a version
      </h2>
      <p class="hint">
        Say this {what}'s caller turns again, one by one, to a version of {agent.name}, and see turn by turn where its replies differ from
        the recorded ones, then whether the success criteria still pass. Tools are called for real; the models used are metered.
      </p>
      <Csrf token={csrf} />
      <Select
        name="version"
        label="Version"
        value={String(agent.liveVersion)}
        options={versions.map((v) => ({
          value: String(v.version),
          label: versionName(agent, v.version) + (v.version === ranVersion ? `, the one this ${what} ran with` : ""),
        }))}
      />
      <p>
        <button type="submit" class="secondary">
          Replay against this version
        </button>
      </p>
    </form>
  );
};
