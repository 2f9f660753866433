/** @jsxImportSource hono/jsx */
// "Test a question" on a knowledge base's page: the passages a question finds, nearest first, each
// with its score, document and heading: what an agent linked to it would be handed. The form posts
// to POST /dashboard/knowledge/:id/query (the API's query, metered the same way); the page's script
// sends it without leaving the page and draws the answer as the server does here.
import type { FC } from "hono/jsx";
import type { Passage } from "../../knowledge/search";
import { Badge, Csrf, TextField } from "../ui";
import type { FormState, Found, QueryValues } from "./form";

/** One passage found. */
export const PassageItem: FC<{ passage: Passage }> = ({ passage }) => (
  <li>
    <p class="passage-meta">
      <Badge>score {passage.score.toFixed(2)}</Badge> <strong>{passage.documentName}</strong>
      {passage.heading ? <span class="muted"> › {passage.heading}</span> : null}
    </p>
    <p class="passage">{passage.content}</p>
  </li>
);

/** What the status line says of an answer. */
export const foundSummary = (found: Found) =>
  found.data.length === 0
    ? "No passage found: only ready documents are searched."
    : `${found.data.length} ${found.data.length === 1 ? "passage" : "passages"} found, nearest first (the question used ${found.usage.tokens} tokens).`;

export const TestQuery: FC<{ base: string; csrf: string; state: FormState<QueryValues> & { found?: Found } }> = ({ base, csrf, state }) => (
  <section class="card" aria-labelledby="query-heading">
    <h2 id="query-heading" class="mt0">
      Test a question
    </h2>
    <p class="small muted">
      The passages an agent linked to this knowledge base would be handed for a question, nearest first. The question's embedding is metered
      like any.
    </p>
    <form method="post" action={`/dashboard/knowledge/${base}/query`} novalidate data-query-form>
      <Csrf token={csrf} />
      <div class="query-fields">
        <TextField name="query" label="Question" value={state.values.query} errors={state.errors} required />
        <TextField name="topK" label="Passages (1–20)" type="number" value={state.values.topK} errors={state.errors} />
      </div>
      <p class="row">
        <button type="submit">Search</button>
      </p>
    </form>
    <p class="small" role="status" data-query-status>
      {state.found ? foundSummary(state.found) : ""}
    </p>
    <ol class="passages" data-query-results>
      {(state.found?.data ?? []).map((p) => (
        <PassageItem passage={p} />
      ))}
    </ol>
  </section>
);
