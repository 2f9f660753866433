// One Durable Object per batch of test runs (named by the batch's id, or the run's): its runner. It
// holds the ids of the runs handed to it and an alarm; every fact of a run is in Postgres. The alarm
// plays the queued runs (RUNS_AT_ONCE at a time, executeRun), and wakes the object again until each
// run it holds is final. A run starts once (executeRun takes only a queued run), so a second wake, a
// retried alarm or a restarted object plays nothing twice; a run left `running` by an object that
// died is ended by the cron run's sweep (docs/agent-tests.md, "Background work and limits").
import { DurableObject } from "cloudflare:workers";
import { openScope } from "../../db/scope";
import { type Bindings, parseEnv } from "../../env";
import { ApiError } from "../../lib/errors";
import { contextOf, publicOrigin } from "../../services";
import { openRunIds } from "../queries";
import { playRuns, STALE_RUN_MS } from "../service";
import type { TestRunnerRpc } from "./stub";

/** A run held but not final after the alarm (played elsewhere, or the database failed) is looked at again this much later. */
export const RECHECK_MS = 30_000;
/** The runner lets go of runs it held this long: by then the cron run's sweep has ended them. */
const GIVE_UP_MS = 2 * STALE_RUN_MS;

export class TestRunner extends DurableObject<Bindings> implements TestRunnerRpc {
  /** The play in progress: a wake's alarm during it waits for it. */
  private running: Promise<void> | null = null;

  /** Holds the runs (with those it holds already) and plays them as soon as possible (its alarm set for now). */
  async wake(runIds: string[], origin?: string): Promise<void> {
    const held = (await this.ctx.storage.get<string[]>("runIds")) ?? [];
    const since = (await this.ctx.storage.get<number>("since")) ?? Date.now();
    await this.ctx.storage.put({ runIds: [...new Set([...held, ...runIds])], since, ...(origin ? { origin } : {}) });
    await this.ctx.storage.setAlarm(Date.now());
  }

  override async alarm(): Promise<void> {
    while (this.running) await this.running;
    this.running = this.play().finally(() => {
      this.running = null;
    });
    await this.running;
  }

  private async play(): Promise<void> {
    const runIds = (await this.ctx.storage.get<string[]>("runIds")) ?? [];
    if (runIds.length === 0) return;
    const config = parseEnv(this.env);
    const origin = publicOrigin(config, await this.ctx.storage.get<string>("origin"));
    const scope = openScope(config);
    // The played runs not final yet; all of them when the play failed.
    let open = new Set(runIds);
    try {
      const sessions = this.env.CALL_SESSIONS;
      const callSessions = () => {
        if (!sessions) throw new ApiError("misconfigured", "The CALL_SESSIONS Durable Object binding is missing (wrangler.toml).");
        return sessions;
      };
      const ctx = { ...contextOf(scope, config, origin || undefined, this.env), publicOrigin: origin, callSessions };
      await playRuns(ctx, runIds);
      open = new Set(await openRunIds(scope.db, runIds));
    } catch (err) {
      // Nothing is lost (the runs are in Postgres): the runner looks again shortly.
      console.error(JSON.stringify({ level: "error", msg: "test runs failed", runIds, error: (err as Error).message }));
    } finally {
      // The work the runs deferred (test_run.completed deliveries in direct mode) settles inside the alarm.
      await scope.close();
    }
    // Read again: a wake during the play may have added runs (not played yet: they stay).
    const added = (id: string) => !runIds.includes(id);
    const held = ((await this.ctx.storage.get<string[]>("runIds")) ?? []).filter((id) => added(id) || open.has(id));
    const since = (await this.ctx.storage.get<number>("since")) ?? Date.now();
    if (held.length === 0 || Date.now() - since > GIVE_UP_MS) {
      await this.ctx.storage.deleteAlarm();
      await this.ctx.storage.deleteAll();
      return;
    }
    await this.ctx.storage.put("runIds", held);
    // A wake during the play set an earlier alarm: it stands.
    const next = Date.now() + (held.some(added) ? 0 : RECHECK_MS);
    const pending = await this.ctx.storage.getAlarm();
    if (pending === null || pending > next) await this.ctx.storage.setAlarm(next);
  }
}
