/** @jsxImportSource hono/jsx */
// The Knowledge screen: the workspace's knowledge bases (what each holds) and the form that
// creates one. With none yet, it says what knowledge bases are for.
import type { FC } from "hono/jsx";
import type { KnowledgeBaseView } from "../../knowledge/schema";
import { Csrf, DataTable, EmptyState, ErrorSummary, type FieldErrors, Flash, Layout, type Shell, TextArea, TextField, When } from "../ui";
import { bytesLabel } from "./format";

export interface NewBaseValues {
  name: string;
  description: string;
}

export const EMPTY_BASE: NewBaseValues = { name: "", description: "" };

export interface KnowledgeListProps {
  shell: Shell;
  bases: KnowledgeBaseView[];
  /** The next page's address ("Older knowledge bases"), or null. */
  next: string | null;
  values: NewBaseValues;
  errors: FieldErrors;
  notice?: string;
}

const WHAT_FOR =
  "A knowledge base holds documents (a price list, a manual, your opening hours, a returns policy) that your agents answer from. " +
  "Add files, text or web pages to it; they are split into passages and indexed. Then link it to an agent (the agent's Knowledge section): " +
  "before each reply, or when the agent decides to search, the passages nearest to what the caller said are handed to it.";

export const KnowledgeList: FC<KnowledgeListProps> = ({ shell, bases, next, values, errors, notice }) => (
  <Layout
    shell={shell}
    actions={
      <a class="button" href="#new-knowledge-base">
        New knowledge base
      </a>
    }
  >
    {notice ? <Flash>{notice}</Flash> : null}
    <ErrorSummary errors={errors} />
    {bases.length > 0 ? <p class="muted small mt0">{WHAT_FOR}</p> : null}
    <DataTable
      rows={bases}
      stack
      empty={
        <EmptyState action={{ href: "#new-knowledge-base", label: "Create the first one" }}>No knowledge bases yet. {WHAT_FOR}</EmptyState>
      }
      columns={[
        { header: "Name", label: "Name", cell: (b) => <a href={`/dashboard/knowledge/${b.id}`}>{b.name}</a> },
        { header: "Documents", label: "Documents", cell: (b) => b.documentCount },
        { header: "Passages", label: "Passages", cell: (b) => b.chunkCount },
        { header: "Size", label: "Size", cell: (b) => bytesLabel(b.sizeBytes) },
        { header: "Updated", label: "Updated", cell: (b) => <When at={b.updatedAt} /> },
      ]}
    />
    {next ? (
      <p>
        <a href={next}>Older knowledge bases</a>
      </p>
    ) : null}
    <form method="post" action="/dashboard/knowledge" class="card" novalidate aria-labelledby="new-knowledge-base">
      <h2 class="mt0" id="new-knowledge-base">
        New knowledge base
      </h2>
      <Csrf token={shell.csrf} />
      <TextField name="name" label="Name" value={values.name} errors={errors} required hint="e.g. Dental office: prices and policies" />
      <TextArea
        name="description"
        label="Description (optional)"
        value={values.description}
        errors={errors}
        rows={2}
        hint="What it holds, for your team."
      />
      <p class="row">
        <button type="submit">Create knowledge base</button>
      </p>
    </form>
  </Layout>
);
