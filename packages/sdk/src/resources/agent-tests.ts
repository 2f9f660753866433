// Agent tests (docs/agent-tests.md): scenarios played against an agent as chats, or as voice calls
// through the whole pipeline (`mode: "voice"`), judged on their criteria. Runs are queued and played
// in the background: `runAndWait` runs one test or all of an agent's and polls until each is final,
// so a CI job can fail when a test does. `replay` replays a past call or chat against a version, turn by turn.
import type { RequestOptions } from "../core.js";
import type { PagePromise } from "../pagination.js";
import type {
  AgentReplayParams,
  AgentTest,
  AgentTestCreateParams,
  AgentTestListParams,
  AgentTestRun,
  AgentTestRunListParams,
  AgentTestRunParams,
  AgentTestUpdateParams,
  StartedAgentTestRuns,
} from "../types.js";
import { Resource } from "./resource.js";

const FINAL: ReadonlyArray<AgentTestRun["status"]> = ["passed", "failed", "error"];

export interface RunAndWaitOptions extends AgentTestRunParams {
  /** One test's id; omitted: every test of the agent. */
  testId?: string;
  /** Between two reads of the runs (default 1,000 ms). */
  intervalMs?: number;
  /** Gives up after this long (default 10 minutes): then `timedOut` is true and unfinished runs are as last read. */
  timeoutMs?: number;
}

export interface RunAndWaitResult {
  /** The runs, in the order they were started, as last read. */
  runs: AgentTestRun[];
  /** Every run passed. */
  passed: boolean;
  /** Some run was not final when `timeoutMs` passed. */
  timedOut: boolean;
}

export class AgentTestRuns extends Resource {
  /** Newest first; `testId`, `batchId`, `status` and `mode` filter. */
  list(agentId: string, query?: AgentTestRunListParams, options?: RequestOptions): PagePromise<AgentTestRun> {
    return this.page("listAgentTestRuns", query, options, { id: agentId });
  }

  retrieve(agentId: string, runId: string, options?: RequestOptions): Promise<AgentTestRun> {
    return this.call({ operation: "getAgentTestRun", pathParams: { id: agentId, runId } }, options);
  }
}

export class AgentTests extends Resource {
  readonly runs = new AgentTestRuns(this.client);

  create(agentId: string, body: AgentTestCreateParams, options?: RequestOptions): Promise<AgentTest> {
    return this.call({ operation: "createAgentTest", pathParams: { id: agentId }, body }, options);
  }

  retrieve(agentId: string, testId: string, options?: RequestOptions): Promise<AgentTest> {
    return this.call({ operation: "getAgentTest", pathParams: { id: agentId, testId } }, options);
  }

  update(agentId: string, testId: string, body: AgentTestUpdateParams, options?: RequestOptions): Promise<AgentTest> {
    return this.call({ operation: "updateAgentTest", pathParams: { id: agentId, testId }, body }, options);
  }

  list(agentId: string, query?: AgentTestListParams, options?: RequestOptions): PagePromise<AgentTest> {
    return this.page("listAgentTests", query, options, { id: agentId });
  }

  del(agentId: string, testId: string, options?: RequestOptions): Promise<void> {
    return this.call({ operation: "deleteAgentTest", pathParams: { id: agentId, testId }, expect: "empty" }, options);
  }

  /** Queues a run of one test (202), as a chat or (`mode: "voice"`) a voice call: poll `runs.retrieve`, or use `runAndWait`. */
  run(agentId: string, testId: string, body: AgentTestRunParams = {}, options?: RequestOptions): Promise<StartedAgentTestRuns> {
    return this.call({ operation: "runAgentTest", pathParams: { id: agentId, testId }, body }, options);
  }

  /** Queues a run of each of the agent's tests, sharing a `batchId` (202). */
  runAll(agentId: string, body: AgentTestRunParams = {}, options?: RequestOptions): Promise<StartedAgentTestRuns> {
    return this.call({ operation: "runAgentTests", pathParams: { id: agentId }, body }, options);
  }

  /**
   * Queues a replay of one of the agent's past calls or chats (`callId` or `chatId`) against a
   * version (202), as text or (`mode: "voice"`) through a web call: the run has mode `replay`; poll `runs.retrieve` until it is final, then read
   * `replay.turns` (each caller turn's reply then and now) and `replay.differingTurns`.
   */
  replay(agentId: string, body: AgentReplayParams, options?: RequestOptions): Promise<AgentTestRun> {
    return this.call({ operation: "replayAgentConversation", pathParams: { id: agentId }, body }, options);
  }

  /** Runs one test (`testId`) or all of the agent's (`mode`: chat or voice), and reads the runs again until each is final. */
  async runAndWait(agentId: string, opts: RunAndWaitOptions = {}, options?: RequestOptions): Promise<RunAndWaitResult> {
    const { testId, intervalMs = 1_000, timeoutMs = 600_000, ...body } = opts;
    const started = testId ? await this.run(agentId, testId, body, options) : await this.runAll(agentId, body, options);
    const deadline = Date.now() + timeoutMs;
    let runs = started.data;
    for (;;) {
      const pending = runs.filter((r) => !FINAL.includes(r.status));
      if (pending.length === 0 || Date.now() >= deadline) {
        return { runs, passed: pending.length === 0 && runs.every((r) => r.status === "passed"), timedOut: pending.length > 0 };
      }
      await new Promise((r) => setTimeout(r, intervalMs));
      const read = new Map((await Promise.all(pending.map((r) => this.runs.retrieve(agentId, r.id, options)))).map((r) => [r.id, r]));
      runs = runs.map((r) => read.get(r.id) ?? r);
    }
  }
}
