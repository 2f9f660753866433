// The embedded Postgres serves many connections from one PGlite session. Each connection's
// extended-protocol batch (Parse, Bind, Execute, Sync) must run whole before another connection's
// messages: the unnamed statement is session state, and an interleaved Parse replaces it.
import { connect } from "node:net";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EmbeddedPostgres, startEmbeddedPostgres } from "../../dev/postgres";

describe("embedded Postgres with many connections", () => {
  let server: EmbeddedPostgres;
  const clients: pg.Client[] = [];
  const client = (i: number) => {
    const found = clients[i];
    if (!found) throw new Error(`no client ${i}`);
    return found;
  };

  // PGlite's start (a WebAssembly Postgres) takes seconds, many more on a busy machine than the
  // default 10 s hook timeout allows.
  beforeAll(async () => {
    server = await startEmbeddedPostgres({});
    for (let i = 0; i < 8; i++) {
      const client = new pg.Client({ connectionString: server.url });
      await client.connect();
      clients.push(client);
    }
  }, 120_000);
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
    await server.stop();
  });

  it("keeps each connection's Parse/Bind/Execute together when they all query at once", async () => {
    // Statements of different parameter counts: one bound against another's Parse fails loudly
    // ("bind message supplies 6 parameters, but prepared statement requires 1").
    const rounds = await Promise.all(
      clients.map(async (each, c) => {
        const answers: number[] = [];
        for (let i = 0; i < 40; i++) {
          const params = Array.from({ length: 1 + ((c + i) % 6) }, (_, k) => c * 1000 + i + k);
          const sql = `select ${params.map((_, k) => `$${k + 1}::int`).join(" + ")} as v`;
          const { rows } = await each.query(sql, params);
          answers.push(Number(rows[0].v) - params.reduce((a, b) => a + b, 0));
        }
        return answers;
      }),
    );
    expect(rounds.flat()).toEqual(Array(8 * 40).fill(0));
  });

  it("a transaction on one connection sees none of another's statements inside it", async () => {
    const [a, b] = [client(0), client(1)];
    await a.query("create table if not exists tx_probe (v int)");
    await a.query("begin");
    const other = b.query("insert into tx_probe values ($1)", [2]);
    await a.query("insert into tx_probe values ($1)", [1]);
    await a.query("rollback");
    await other;
    const { rows } = await a.query("select v from tx_probe order by v");
    expect(rows).toEqual([{ v: 2 }]);
  });

  it("holds other connections back between one connection's Parse and its Sync, however the batch arrives", async () => {
    const a = await rawConnection(server.port);
    // A's Parse arrives alone; B's whole query (six parameters) is sent before A's Bind.
    a.send(message("P", cstr(""), cstr("select $1::int + 1 as v"), int16(0)));
    await a.settle();
    const b = client(1).query("select $1::int + $2::int + $3::int + $4::int + $5::int + $6::int as v", [1, 2, 3, 4, 5, 6]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    a.send(message("B", cstr(""), cstr(""), int16(0), int16(1), int32(2), Buffer.from("41"), int16(0)));
    a.send(message("E", cstr(""), int32(0)), message("S"));
    const answer = await a.untilReady();
    expect(answer.types).toEqual(["1", "2", "D", "C", "Z"]);
    expect(answer.text).toContain("42");
    expect((await b).rows).toEqual([{ v: 21 }]);
    a.close();
  });

  it("a connection that leaves in the middle of a batch does not stall or spoil the others", async () => {
    const a = await rawConnection(server.port);
    a.send(message("P", cstr(""), cstr("select nonsense_column"), int16(0))); // an error: skip to Sync
    await a.settle();
    a.close();
    const { rows } = await client(0).query("select $1::int as v", [7]);
    expect(rows).toEqual([{ v: 7 }]);
  });

  it("a connection that leaves inside a transaction has it rolled back, and the others go on", async () => {
    await client(0).query("create table if not exists left_probe (v int)");
    const a = await rawConnection(server.port);
    a.send(message("Q", cstr("begin; insert into left_probe values (1)")));
    expect((await a.untilReady()).types).toContain("C");
    a.close();
    const { rows } = await client(1).query("select count(*)::int as n from left_probe where v = $1", [1]);
    expect(rows).toEqual([{ n: 0 }]);
    await client(1).query("insert into left_probe values ($1)", [2]);
    expect((await client(0).query("select v from left_probe")).rows).toEqual([{ v: 2 }]);
  });
});

const cstr = (s: string) => Buffer.from(`${s}\0`);
const int16 = (n: number) => Buffer.from([(n >> 8) & 255, n & 255]);
const int32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};
function message(type: string, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  return Buffer.concat([Buffer.from(type), int32(body.length + 4), body]);
}

/** A bare protocol connection: each send() is its own write, so a batch can arrive in parts. */
async function rawConnection(port: number) {
  const socket = connect(port, "127.0.0.1");
  socket.setNoDelay(true);
  let received = Buffer.alloc(0);
  let wake = () => {};
  socket.on("data", (chunk) => {
    received = Buffer.concat([received, chunk]);
    wake();
  });
  const readUntilReady = async () => {
    const types: string[] = [];
    let offset = 0;
    for (;;) {
      while (offset + 5 <= received.length && offset + 1 + received.readInt32BE(offset + 1) <= received.length) {
        const type = String.fromCharCode(received.readUInt8(offset));
        const end = offset + 1 + received.readInt32BE(offset + 1);
        types.push(type);
        if (type === "Z") {
          const text = received.subarray(0, end).toString("latin1");
          received = received.subarray(end);
          return { types, text };
        }
        offset = end;
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  };
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  const startup = Buffer.concat([int32(196608), cstr("user"), cstr("postgres"), cstr("database"), cstr("postgres"), Buffer.from([0])]);
  socket.write(Buffer.concat([int32(startup.length + 4), startup]));
  await readUntilReady();
  return {
    send: (...parts: Buffer[]) => socket.write(Buffer.concat(parts)),
    /** Lets the server take in what was sent (its handler runs on the next turns of the loop). */
    settle: () => new Promise((resolve) => setTimeout(resolve, 50)),
    untilReady: readUntilReady,
    close: () => socket.destroy(),
  };
}
