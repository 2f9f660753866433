// The knowledge bench's question set (docs/benchmarks.md, "Knowledge bases"): three documents in
// bench/fixtures/knowledge/ (a dental office, a shop's returns policy, an espresso machine's manual)
// and 30 questions, each answered by one passage, labelled with its document, heading path and a
// phrase the passage holds. The documents are uploaded through the API as files, processed by the
// worker (chunked, embedded by the provider), and each question is asked of
// POST /v1/knowledge-bases/:id/query with topK 5: a hit at k when a passage of that document, under
// that heading, holding that phrase, is among the first k. Run by bench/knowledge.ts and by
// test/integration/knowledge/questions.test.ts, which asserts the goal.
import { readFileSync } from "node:fs";

const DIR = new URL("./fixtures/knowledge/", import.meta.url);
export const SET_DOCUMENTS = ["dental-office.md", "returns-policy.md", "espresso-manual.md"] as const;
/** The goal: the right passage in the top 5 for at least this many of the 30. */
export const SET_GOAL = 27;
export const SET_TOP_K = 5;

export interface SetQuestion {
  question: string;
  document: string;
  heading: string;
  answer: string;
}

export const questionSet = (): SetQuestion[] =>
  (JSON.parse(readFileSync(new URL("questions.json", DIR), "utf8")) as { questions: SetQuestion[] }).questions;

export const setDocument = (name: string): string => readFileSync(new URL(name, DIR), "utf8");

/** A request to the worker with the workspace's key: the integration harness's `ws.api`, or the bench's. */
export type Api = (path: string, init?: RequestInit & { json?: unknown }) => Promise<Response>;

interface DocumentRow {
  id: string;
  name: string;
  status: string;
  error: string | null;
  chunkCount: number;
}
interface PassageRow {
  documentName: string;
  heading: string;
  content: string;
}

export interface QuestionOutcome extends SetQuestion {
  /** 1-based rank of the right passage among the topK found; null when it is not among them. */
  rank: number | null;
  /** What came first, for the report when it is not the right one. */
  first: string;
}

export interface SetResult {
  passages: number;
  questions: number;
  hitsAt1: number;
  hitsAt5: number;
  outcomes: QuestionOutcome[];
  ingestMs: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function readJson<T>(res: Response, what: string, status: number): Promise<T> {
  const text = await res.text();
  if (res.status !== status) throw new Error(`${what} answered ${res.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

/** Uploads the set's documents to `knowledgeBaseId` as files and waits until each is ready. */
export async function uploadSet(api: Api, knowledgeBaseId: string, timeoutMs = 60_000): Promise<DocumentRow[]> {
  const added: DocumentRow[] = [];
  for (const name of SET_DOCUMENTS) {
    const form = new FormData();
    form.set("file", new Blob([setDocument(name)], { type: "text/markdown" }), name);
    const res = await api(`/v1/knowledge-bases/${knowledgeBaseId}/documents`, { method: "POST", body: form });
    added.push(await readJson<DocumentRow>(res, `uploading ${name}`, 202));
  }
  const deadline = Date.now() + timeoutMs;
  const done: DocumentRow[] = [];
  for (const doc of added) {
    for (;;) {
      const now = await readJson<DocumentRow>(await api(`/v1/knowledge-bases/${knowledgeBaseId}/documents/${doc.id}`), doc.name, 200);
      if (now.status === "ready") {
        done.push(now);
        break;
      }
      if (now.status === "failed") throw new Error(`${doc.name} failed: ${now.error}`);
      if (Date.now() > deadline) throw new Error(`${doc.name} still ${now.status} after ${timeoutMs / 1000} s`);
      await sleep(50);
    }
  }
  return done;
}

export const isAnswer = (q: SetQuestion, p: PassageRow): boolean =>
  p.documentName === q.document && p.heading === q.heading && p.content.includes(q.answer);

/** Asks every question of the knowledge base (topK 5) and counts where the right passage came. */
export async function askSet(api: Api, knowledgeBaseId: string): Promise<Omit<SetResult, "passages" | "ingestMs">> {
  const outcomes: QuestionOutcome[] = [];
  for (const q of questionSet()) {
    const res = await api(`/v1/knowledge-bases/${knowledgeBaseId}/query`, {
      method: "POST",
      json: { query: q.question, topK: SET_TOP_K },
    });
    const { data } = await readJson<{ data: PassageRow[] }>(res, `the query "${q.question}"`, 200);
    const at = data.findIndex((p) => isAnswer(q, p));
    outcomes.push({ ...q, rank: at < 0 ? null : at + 1, first: data[0] ? `${data[0].documentName}: ${data[0].heading}` : "nothing" });
  }
  return {
    questions: outcomes.length,
    hitsAt1: outcomes.filter((o) => o.rank === 1).length,
    hitsAt5: outcomes.filter((o) => o.rank !== null && o.rank <= SET_TOP_K).length,
    outcomes,
  };
}

/** A new knowledge base with the set's documents, then the 30 questions. */
export async function runQuestionSet(api: Api, name = "Question set"): Promise<SetResult> {
  const base = await readJson<{ id: string }>(
    await api("/v1/knowledge-bases", { method: "POST", json: { name } }),
    "POST /v1/knowledge-bases",
    201,
  );
  const t0 = performance.now();
  const docs = await uploadSet(api, base.id);
  const ingestMs = performance.now() - t0;
  const asked = await askSet(api, base.id);
  return { ...asked, passages: docs.reduce((n, d) => n + d.chunkCount, 0), ingestMs };
}
