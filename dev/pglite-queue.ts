// pglite-socket serves every connection from one PGlite session through one queue of protocol
// messages. Its queue (0.2.17) keeps a connection's messages together only inside a transaction,
// so connection B's Parse can land between connection A's Parse and Bind and replace the unnamed
// statement A then binds ("bind message supplies 6 parameters, but prepared statement requires
// 1"), and a batch left without its Sync leaves the session skipping the next client's messages.
// Upstream: electric-sql/pglite#1046 (open), #977. This queue, installed in place of the server's
// own, runs each connection's extended-protocol batch whole, from its first message to its Sync,
// and ends a batch that its connection left. The interface is the one the server's handlers call.
import type { PGlite } from "@electric-sql/pglite";

interface Item {
  handlerId: number;
  message: Uint8Array;
  onData: (data: Uint8Array) => void;
  resolve: (bytes: number) => void;
  reject: (error: unknown) => void;
}

/** Frontend messages after which the session holds state for the next message of the batch. */
const OPENS_BATCH = new Set(["P", "B", "D", "E", "C", "H"].map((c) => c.charCodeAt(0)));
const SYNC = Uint8Array.from([0x53, 0, 0, 0, 4]);

export class BatchQueue {
  private queue: Item[] = [];
  private processing = false;
  /** The connection whose batch or transaction is open: only its messages run until it ends. */
  private owner: number | null = null;
  private batchOpen = false;
  /** The message running now, and whether its connection left while it ran. */
  private running: { handlerId: number; departed: boolean } | null = null;

  constructor(private readonly db: PGlite) {}

  enqueue(handlerId: number, message: Uint8Array, onData: (data: Uint8Array) => void): Promise<number> {
    return new Promise((resolve, reject) => {
      this.queue.push({ handlerId, message, onData, resolve, reject });
      void this.process();
    });
  }

  getQueueLength(): number {
    return this.queue.length;
  }

  clearQueueForHandler(handlerId: number): void {
    this.queue = this.queue.filter((item) => {
      if (item.handlerId !== handlerId) return true;
      item.reject(new Error("Handler disconnected"));
      return false;
    });
  }

  /** The connection left: end what it left open (its batch, its transaction), then go on. */
  async clearTransactionIfNeeded(handlerId: number): Promise<void> {
    if (this.running?.handlerId === handlerId) {
      this.running.departed = true; // the loop ends what it leaves open once the message is done
      return;
    }
    if (this.owner !== handlerId) return;
    await this.endOwnersSession();
    await this.process();
  }

  /** Ends the batch and transaction the owner left. Never throws: the queue goes on whatever happens here. */
  private async endOwnersSession(): Promise<void> {
    try {
      // The raw protocol runs under the session's lock; exec() takes that lock itself (and would
      // wait for ever inside it). `owner` keeps every other connection out until both are done.
      if (this.batchOpen) await this.db.runExclusive(() => this.db.execProtocolRaw(SYNC));
      if (this.db.isInTransaction()) await this.db.exec("ROLLBACK");
    } catch (error) {
      console.error(`embedded Postgres: ending a connection's session failed: ${(error as Error).message}`);
    } finally {
      this.owner = null;
      this.batchOpen = false;
    }
  }

  private next(): Item | undefined {
    if (this.owner === null) return this.queue.shift();
    const index = this.queue.findIndex((item) => item.handlerId === this.owner);
    return index === -1 ? undefined : this.queue.splice(index, 1)[0];
  }

  private async process(): Promise<void> {
    if (this.processing) return;
    this.processing = true;
    try {
      for (let item = this.next(); item; item = this.next()) {
        const current = item;
        const running = { handlerId: current.handlerId, departed: false };
        this.running = running;
        let bytes = 0;
        try {
          await this.db.runExclusive(() =>
            this.db.execProtocolRawStream(current.message, {
              onRawData: (data) => {
                bytes += data.length;
                current.onData(data);
              },
            }),
          );
        } catch (error) {
          // One message failing must not stop the queue for every other connection.
          current.reject(error);
        }
        this.batchOpen = OPENS_BATCH.has(current.message[0] ?? 0);
        this.owner = this.batchOpen || this.db.isInTransaction() ? current.handlerId : null;
        this.running = null;
        if (running.departed && this.owner === current.handlerId) await this.endOwnersSession();
        current.resolve(bytes); // after a reject, a no-op
      }
    } finally {
      this.processing = false;
    }
  }
}

/** Puts the batch queue in place of the server's own, before it takes connections. */
export function installBatchQueue(server: object, db: PGlite): void {
  const holder = server as { queryQueue?: unknown };
  if (!holder.queryQueue) throw new Error("pglite-socket changed: its server has no queryQueue to replace (see dev/pglite-queue.ts)");
  holder.queryQueue = new BatchQueue(db);
}
