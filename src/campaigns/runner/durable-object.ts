// One Durable Object per campaign (named by the campaign's id): its runner. It holds only an alarm
// and the origin the carrier calls back (when the deployment has no PUBLIC_BASE_URL); every fact of
// the campaign is in Postgres, so a restarted worker, a lost alarm or a second runner racing loses
// nothing and dials nothing twice (docs/campaigns.md, "How a campaign runs").
import { DurableObject } from "cloudflare:workers";
import { openScope } from "../../db/scope";
import { type Bindings, parseEnv } from "../../env";
import { ApiError } from "../../lib/errors";
import { contextOf, publicOrigin } from "../../services";
import { runCampaign, TICK_MS } from "./run";
import type { RunnerRpc } from "./stub";

export class CampaignRunner extends DurableObject<Bindings> implements RunnerRpc {
  /** The run in progress: runs of one campaign never overlap here (a wake's alarm waits for it). */
  private running: Promise<void> | null = null;

  /** Runs the campaign as soon as possible (its alarm set for now). `origin`: where the carrier calls back, kept for later runs. */
  async wake(campaignId: string, origin?: string): Promise<void> {
    await this.ctx.storage.put(origin ? { campaignId, origin } : { campaignId });
    await this.ctx.storage.setAlarm(Date.now());
  }

  override async alarm(): Promise<void> {
    while (this.running) await this.running;
    this.running = this.run().finally(() => {
      this.running = null;
    });
    await this.running;
  }

  private async run(): Promise<void> {
    const campaignId = await this.ctx.storage.get<string>("campaignId");
    if (!campaignId) return;
    const config = parseEnv(this.env);
    const origin = publicOrigin(config, await this.ctx.storage.get<string>("origin"));
    if (!origin) {
      // Nowhere for the carrier to call back: the next wake from a request (start, resume) brings one.
      console.log(JSON.stringify({ level: "warn", msg: "campaign runner has no public origin (PUBLIC_BASE_URL)", campaignId }));
      return;
    }
    const scope = openScope(config);
    let next: Date | null;
    try {
      const sessions = this.env.CALL_SESSIONS;
      const callSessions = () => {
        if (!sessions) throw new ApiError("misconfigured", "The CALL_SESSIONS Durable Object binding is missing (wrangler.toml).");
        return sessions;
      };
      const ctx = { ...contextOf(scope, config, origin, this.env), publicOrigin: origin, callSessions };
      ({ next } = await runCampaign({ ctx, input: { campaignId } }));
    } catch (err) {
      // Nothing is lost (the state is in Postgres): the run is tried again shortly.
      console.error(JSON.stringify({ level: "error", msg: "campaign run failed", campaignId, error: (err as Error).message }));
      next = new Date(Date.now() + 5 * TICK_MS);
    } finally {
      this.ctx.waitUntil(scope.close());
    }
    // A wake during the run set an earlier alarm: it stands.
    const pending = await this.ctx.storage.getAlarm();
    if (next && (pending === null || pending > next.getTime())) await this.ctx.storage.setAlarm(next);
  }
}
