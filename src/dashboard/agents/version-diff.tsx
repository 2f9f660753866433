/** @jsxImportSource hono/jsx */
// Two versions of an agent compared (docs/dashboard.md, "Agent versions"): a form that picks them
// (a GET, so the page's address names them), each top-level field that differs with what was
// removed and added (./text-diff.ts: by words on one line, else by lines), and Publish or Roll back
// for the version compared to. The comparison itself is the API's (agents/versions.ts diffAgentVersions).
import type { FC } from "hono/jsx";
import type { Agent } from "../../agents/service";
import type { ListedVersion, VersionDiff } from "../../agents/versions";
import { Layout, Select, type Shell } from "../ui";
import { AGENTS_CSS } from "../ui/assets/built";
import { type DiffPart, diffValues } from "./text-diff";
import { VersionAction, versionName } from "./versions";

const Part: FC<{ part: DiffPart }> = ({ part }) =>
  part.op === "same" ? (
    <span>{part.text}</span>
  ) : part.op === "del" ? (
    <del>
      <span class="sr">[removed: </span>
      {part.text}
      <span class="sr">]</span>
    </del>
  ) : (
    <ins>
      <span class="sr">[added: </span>
      {part.text}
      <span class="sr">]</span>
    </ins>
  );

/** Line parts as lines, each marked with - or + (and the words removed or added, for screen readers). */
const Lines: FC<{ parts: DiffPart[] }> = ({ parts }) => (
  <pre class="diff">
    {parts.flatMap((part) =>
      part.text.split("\n").map((line) => {
        const mark = part.op === "same" ? "  " : part.op === "del" ? "- " : "+ ";
        return (
          <span class={`line ${part.op}`}>
            <span aria-hidden="true">{mark}</span>
            <Part part={{ op: part.op, text: line }} />
            {"\n"}
          </span>
        );
      }),
    )}
  </pre>
);

const FieldChange: FC<{ field: string; before: unknown; after: unknown }> = ({ field, before, after }) => {
  const diff = diffValues(before, after);
  return (
    <section class="card field-diff" aria-labelledby={`diff-${field}`}>
      <h3 class="mt0 mono" id={`diff-${field}`}>
        {field}
      </h3>
      {diff.kind === "words" ? (
        <p class="diff">
          {diff.parts.map((part) => (
            <Part part={part} />
          ))}
        </p>
      ) : (
        <Lines parts={diff.parts} />
      )}
    </section>
  );
};

export interface VersionDiffPageProps {
  shell: Shell;
  agent: Agent;
  versions: ListedVersion[];
  diff: VersionDiff;
}

export const VersionDiffPage: FC<VersionDiffPageProps> = ({ shell, agent, versions, diff }) => {
  const options = versions.map((v) => ({ value: String(v.version), label: versionName(agent, v.version) }));
  return (
    <Layout
      shell={shell}
      css={AGENTS_CSS}
      actions={
        <a class="button secondary" href={`/dashboard/agents/${agent.id}#versions`}>
          Back to the agent
        </a>
      }
    >
      <form method="get" action={`/dashboard/agents/${agent.id}/versions/diff`} class="card compare">
        <Select name="from" label="Compare" value={String(diff.from)} options={options} />
        <Select name="to" label="With" value={String(diff.to)} options={options} />
        <p>
          <button type="submit" class="secondary">
            Compare
          </button>
        </p>
      </form>
      <p data-diff-summary>
        {diff.changes.length === 0
          ? `${versionName(agent, diff.from)} and ${versionName(agent, diff.to)} are the same.`
          : `From ${versionName(agent, diff.from)} to ${versionName(agent, diff.to)}, ${diff.changes.length} field${diff.changes.length === 1 ? "" : "s"} changed: ${diff.changes.map((c) => c.field).join(", ")}.`}
      </p>
      {diff.changes.map((c) => (
        <FieldChange field={c.field} before={c.before} after={c.after} />
      ))}
      <div class="row">
        <VersionAction agent={agent} version={diff.to} csrf={shell.csrf} />
      </div>
    </Layout>
  );
};
