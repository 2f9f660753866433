// Every statement about agent tests and their runs, for src/agent-tests/service.ts and run.ts. A
// run's move to a final status is one conditional UPDATE (`where status = 'running'`), so the
// outcome is written once, whatever else happens to the run.
import { and, desc, eq, inArray, isNotNull, type SQL, sql } from "drizzle-orm";
import { type Db, rowsOf } from "../db/client";
import { pageQuery } from "../db/pagination";
import {
  type AgentTest,
  type AgentTestRun,
  agentTestRuns,
  agentTests,
  type ChatTurn,
  calls,
  chats,
  type ReplaySource,
  usageEvents,
} from "../db/schema";
import { ownedBy, ownedRow } from "../db/tenancy";
import { newId } from "../lib/ids";
import { type Page, type PageParams, pageOf } from "../lib/pagination";

export type NewTest = Pick<AgentTest, "name" | "scenario" | "criteria" | "toolExpectations" | "judgeModel">;

export async function insertTest(db: Db, organizationId: string, agentId: string, input: NewTest): Promise<AgentTest> {
  const [row] = await db
    .insert(agentTests)
    .values({ id: newId(), organizationId, agentId, ...input })
    .returning();
  return row as AgentTest;
}

export async function countTests(db: Db, agentId: string): Promise<number> {
  const [row] = await db.select({ n: sql<string>`count(*)` }).from(agentTests).where(eq(agentTests.agentId, agentId));
  return Number(row?.n ?? 0);
}

/** The agent's test (of the workspace), or undefined. */
export async function findTest(db: Db, organizationId: string, agentId: string, id: string): Promise<AgentTest | undefined> {
  const [row] = await db
    .select()
    .from(agentTests)
    .where(and(ownedRow(agentTests, organizationId, id), eq(agentTests.agentId, agentId)))
    .limit(1);
  return row;
}

/** Every test of the agent, oldest first (a run of all of them). */
export async function testsOfAgent(db: Db, organizationId: string, agentId: string): Promise<AgentTest[]> {
  return db
    .select()
    .from(agentTests)
    .where(and(ownedBy(agentTests, organizationId), eq(agentTests.agentId, agentId)))
    .orderBy(agentTests.id);
}

export async function pageOfTests(db: Db, organizationId: string, agentId: string, params: PageParams): Promise<Page<AgentTest>> {
  const page = pageQuery(params);
  const rows = await db
    .select()
    .from(agentTests)
    .where(and(ownedBy(agentTests, organizationId), eq(agentTests.agentId, agentId), ...page.where(agentTests)))
    .orderBy(desc(agentTests.id))
    .limit(page.limit + 1);
  return pageOf(rows, page.limit, (r) => r);
}

export async function updateTestRow(
  db: Db,
  organizationId: string,
  agentId: string,
  id: string,
  patch: Partial<NewTest>,
): Promise<AgentTest | undefined> {
  const [row] = await db
    .update(agentTests)
    .set({ ...patch, updatedAt: new Date() })
    .where(and(ownedRow(agentTests, organizationId, id), eq(agentTests.agentId, agentId)))
    .returning();
  return row;
}

export async function deleteTestRow(db: Db, organizationId: string, agentId: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(agentTests)
    .where(and(ownedRow(agentTests, organizationId, id), eq(agentTests.agentId, agentId)))
    .returning({ id: agentTests.id });
  return rows.length > 0;
}

export interface RunWithTest {
  run: AgentTestRun;
  testName: string | null;
}

/** The workspace would have at most `limit` runs queued or running with `adding` more. */
const withinLimit = (organizationId: string, adding: number, limit: number) =>
  sql`(select count(*) from ${agentTestRuns} where organization_id = ${organizationId} and status in ('queued', 'running')) + ${adding} <= ${limit}`;

/**
 * Queues a run of each test in one statement, while the workspace has fewer than `limit` runs
 * queued or running with these added; none (an empty list) when it would pass the limit. Two
 * requests racing may both pass a count taken at once: the limit is a guard against runaway
 * loops, not an exact quota (docs/agent-tests.md, "Limits").
 */
export async function queueRuns(
  db: Db,
  organizationId: string,
  agentId: string,
  tests: ReadonlyArray<Pick<AgentTest, "id">>,
  agentVersion: number | null,
  batchId: string | null,
  mode: "chat" | "voice",
  limit: number,
): Promise<AgentTestRun[]> {
  const rows = tests.map((t) => ({ id: newId(), test_id: t.id }));
  const result = await db.execute(sql`
    insert into ${agentTestRuns} (id, organization_id, test_id, agent_id, agent_version, batch_id, mode)
    select r.id, ${organizationId}, r.test_id, ${agentId}, ${agentVersion}::int, ${batchId}::uuid, ${mode}
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(id uuid, test_id uuid)
    where ${withinLimit(organizationId, rows.length, limit)}
    returning id`);
  const ids = rowsOf<{ id: string }>(result).map((r) => r.id);
  if (ids.length === 0) return [];
  return db.select().from(agentTestRuns).where(inArray(agentTestRuns.id, ids)).orderBy(agentTestRuns.id);
}

const withName = { run: agentTestRuns, testName: agentTests.name };

export async function findRun(db: Db, organizationId: string, agentId: string, id: string): Promise<RunWithTest | undefined> {
  const [row] = await db
    .select(withName)
    .from(agentTestRuns)
    .leftJoin(agentTests, eq(agentTests.id, agentTestRuns.testId))
    .where(and(ownedRow(agentTestRuns, organizationId, id), eq(agentTestRuns.agentId, agentId)))
    .limit(1);
  return row;
}

export async function pageOfRuns(
  db: Db,
  organizationId: string,
  agentId: string,
  params: PageParams & { testId?: string; batchId?: string; status?: AgentTestRun["status"]; mode?: AgentTestRun["mode"] },
): Promise<Page<RunWithTest>> {
  const page = pageQuery(params);
  const filters: SQL[] = [];
  if (params.testId) filters.push(eq(agentTestRuns.testId, params.testId));
  if (params.batchId) filters.push(eq(agentTestRuns.batchId, params.batchId));
  if (params.status) filters.push(eq(agentTestRuns.status, params.status));
  if (params.mode) filters.push(eq(agentTestRuns.mode, params.mode));
  const rows = await db
    .select(withName)
    .from(agentTestRuns)
    .leftJoin(agentTests, eq(agentTests.id, agentTestRuns.testId))
    .where(and(ownedBy(agentTestRuns, organizationId), eq(agentTestRuns.agentId, agentId), ...page.where(agentTestRuns), ...filters))
    .orderBy(desc(agentTestRuns.id))
    .limit(page.limit + 1);
  return pageOf(
    rows.map((r) => ({ ...r, id: r.run.id })),
    page.limit,
    ({ run, testName }) => ({ run, testName }),
  );
}

/**
 * The newest run of each test at each version of the agent it ran against (a test's runs of one
 * version replace each other): the dashboard's results side by side per version.
 */
export async function newestRunsByVersion(db: Db, organizationId: string, agentId: string): Promise<RunWithTest[]> {
  return db
    .selectDistinctOn([agentTestRuns.testId, agentTestRuns.agentVersion], withName)
    .from(agentTestRuns)
    .leftJoin(agentTests, eq(agentTests.id, agentTestRuns.testId))
    .where(and(ownedBy(agentTestRuns, organizationId), eq(agentTestRuns.agentId, agentId), isNotNull(agentTestRuns.testId)))
    .orderBy(agentTestRuns.testId, agentTestRuns.agentVersion, desc(agentTestRuns.id));
}

/** The queued run, now running; undefined when it is not queued any more. */
export async function markRunning(db: Db, id: string): Promise<AgentTestRun | undefined> {
  const [row] = await db
    .update(agentTestRuns)
    .set({ status: "running", startedAt: new Date(), updatedAt: new Date() })
    .where(and(eq(agentTestRuns.id, id), eq(agentTestRuns.status, "queued")))
    .returning();
  return row;
}

export type RunOutcome = Pick<AgentTestRun, "status" | "transcript" | "results" | "toolsCalled" | "latency" | "error"> &
  Partial<Pick<AgentTestRun, "turns" | "callId">>;

/**
 * The running run's outcome and cost, once; undefined when it was final already. The cost is its
 * usage (logged under its id as the chat id), and a voice run's call's (logged under the call's id).
 */
export async function finishRun(db: Db, id: string, outcome: RunOutcome): Promise<AgentTestRun | undefined> {
  const ofCall = outcome.callId ? sql` or ${usageEvents.callId} = ${outcome.callId}` : sql``;
  const cost = sql<number>`(select coalesce(sum(${usageEvents.costMicro}), 0) from ${usageEvents} where ${usageEvents.chatId} = ${id}${ofCall})`;
  const [row] = await db
    .update(agentTestRuns)
    .set({ ...outcome, costMicro: cost, finishedAt: new Date(), updatedAt: new Date() })
    .where(and(eq(agentTestRuns.id, id), inArray(agentTestRuns.status, ["queued", "running"])))
    .returning();
  return row;
}

/** The web call a voice run placed, recorded as soon as it is placed (so the run shows it while it plays). */
export async function setRunCall(db: Db, id: string, callId: string): Promise<void> {
  await db.update(agentTestRuns).set({ callId, updatedAt: new Date() }).where(eq(agentTestRuns.id, id));
}

/** Runs queued or running since before `before` (their worker died): the cron run ends them. */
export async function staleRunIds(db: Db, before: Date, limit: number): Promise<string[]> {
  const rows = await db
    .select({ id: agentTestRuns.id })
    .from(agentTestRuns)
    .where(and(inArray(agentTestRuns.status, ["queued", "running"]), sql`${agentTestRuns.createdAt} < ${before}`))
    .limit(limit);
  return rows.map((r) => r.id);
}

/** Which of these runs are still queued or running (a run deleted with its test is neither). */
export async function openRunIds(db: Db, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .select({ id: agentTestRuns.id })
    .from(agentTestRuns)
    .where(and(inArray(agentTestRuns.id, ids), inArray(agentTestRuns.status, ["queued", "running"])));
  return rows.map((r) => r.id);
}

/** A test by id alone (a run's, read by its background work). */
export async function findTestById(db: Db, id: string): Promise<AgentTest | undefined> {
  const [row] = await db.select().from(agentTests).where(eq(agentTests.id, id)).limit(1);
  return row;
}

export type NewReplay = Pick<AgentTestRun, "agentId" | "agentVersion" | "source" | "criteria">;

/** Queues a replay within the workspace's limit of runs (as queueRuns); undefined when it would pass it. */
export async function queueReplay(db: Db, organizationId: string, replay: NewReplay, limit: number): Promise<AgentTestRun | undefined> {
  const id = newId();
  const result = await db.execute(sql`
    insert into ${agentTestRuns} (id, organization_id, agent_id, agent_version, mode, source, criteria)
    select ${id}, ${organizationId}, ${replay.agentId}, ${replay.agentVersion}::int, 'replay',
      ${JSON.stringify(replay.source)}::jsonb, ${JSON.stringify(replay.criteria)}::jsonb
    where ${withinLimit(organizationId, 1, limit)}
    returning id`);
  if (rowsOf<{ id: string }>(result).length === 0) return undefined;
  const [row] = await db.select().from(agentTestRuns).where(eq(agentTestRuns.id, id));
  return row;
}

/** The turns of the workspace's call or chat with the agent; undefined when there is none. */
export async function sourceTranscript(
  db: Db,
  organizationId: string,
  agentId: string,
  source: ReplaySource,
): Promise<Array<Pick<ChatTurn, "role" | "text">> | undefined> {
  const table = source.kind === "call" ? calls : chats;
  const [row] = await db
    .select({ transcript: table.transcript })
    .from(table)
    .where(and(ownedRow(table, organizationId, source.id), eq(table.agentId, agentId)))
    .limit(1);
  return row?.transcript;
}
