/** @jsxImportSource hono/jsx */
// The agent form's Knowledge section: the workspace's knowledge bases the agent answers from
// (checkboxes), how many passages a search hands it, the distance past which a passage is left
// out, and when it searches (docs/knowledge.md, "Agents"). Saved as the API's `knowledge` plan.
import type { FC } from "hono/jsx";
import { Checkbox, type FieldErrors, GroupError, Select, TextField } from "../ui";
import type { Values } from "./form";

export interface KnowledgeChoice {
  id: string;
  name: string;
}

export const KnowledgeSection: FC<{ values: Values; errors: FieldErrors; bases: KnowledgeChoice[] }> = ({ values, errors, bases }) => {
  const checked = Array.isArray(values.knowledgeBaseIds) ? values.knowledgeBaseIds : [];
  const v = (k: string) => String(values[k] ?? "");
  return (
    <>
      <h2>Knowledge</h2>
      <input type="hidden" name="knowledgeShown" value="1" />
      {bases.length === 0 ? (
        <p class="small muted">
          No knowledge bases in this workspace yet. <a href="/dashboard/knowledge">Create one</a> and add your documents (prices, policies,
          a manual) to have the agent answer from them.
        </p>
      ) : (
        <fieldset
          id="f-knowledgeBaseIds"
          class="knowledge-bases"
          aria-describedby={errors.knowledgeBaseIds ? "f-knowledgeBaseIds-error" : undefined}
        >
          <legend>Knowledge bases the agent answers from</legend>
          <div class="checks">
            {bases.map((b) => (
              <Checkbox name="knowledgeBaseIds" value={b.id} label={b.name} checked={checked.includes(b.id)} />
            ))}
          </div>
          <GroupError name="knowledgeBaseIds" errors={errors} />
        </fieldset>
      )}
      <div class="grid2">
        <Select
          name="knowledgeRetrieval"
          label="When it searches"
          value={v("knowledgeRetrieval")}
          options={[
            { value: "every_turn", label: "Every turn: before each reply" },
            { value: "tool", label: "Only when the agent searches (a search_knowledge tool)" },
          ]}
          errors={errors}
        />
        <TextField
          name="knowledgeTopK"
          label="Passages per search (1–10)"
          type="number"
          value={v("knowledgeTopK")}
          errors={errors}
          hint="Handed to the LLM with the caller's words."
        />
        <TextField
          name="knowledgeMaxDistance"
          label="Max distance (optional, 0–2)"
          type="number"
          step="0.05"
          value={v("knowledgeMaxDistance")}
          errors={errors}
          hint="Passages farther than this from the caller's words are left out: distance is 1 − the score a test question shows on the knowledge base's page. Empty: none is."
        />
      </div>
    </>
  );
};
