// Resources of one test that runs concurrently with the others of its file (describe.concurrent):
// each is stopped when its own test finishes, through the test's context, not in an afterEach that
// would also stop those of the tests still running (test/support/deliveries.ts's receiversPerTest
// is for files whose tests run one at a time).
import type { TestContext } from "vitest";
import type { Workspace } from "./harness";
import { type Receiver, startReceiver } from "./receiver";
import { startToolServer, type ToolServer } from "./tools";
import { createEndpoint } from "./webhooks";

type Finished = Pick<TestContext, "onTestFinished">;

/** A receiver, stopped when the test of `ctx` finishes. */
export async function receiverOf(ctx: Finished, ...args: Parameters<typeof startReceiver>): Promise<Receiver> {
  const receiver = await startReceiver(...args);
  ctx.onTestFinished(() => receiver.stop());
  return receiver;
}

/** A receiver of the test of `ctx`, and an endpoint of the workspace that delivers to it (`body`: its other fields). */
export async function subscribedOf(ctx: Finished, ws: Workspace, body: Record<string, unknown>) {
  const receiver = await receiverOf(ctx);
  return { receiver, endpoint: await createEndpoint(ws, { url: receiver.url, ...body }) };
}

/** A tool server (test/support/tools.ts), stopped when the test of `ctx` finishes. */
export async function toolServerOf(ctx: Finished, ...args: Parameters<typeof startToolServer>): Promise<ToolServer> {
  const server = await startToolServer(...args);
  ctx.onTestFinished(() => server.stop());
  return server;
}
