import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addressRange, checkUrl, checkUrlAtSave, checkUrlResolved, dohResolver, isPublicAddress } from "../../../src/webhooks/ssrf";

describe("receiver URL guard: shapes refused without DNS", () => {
  it.each([
    ["http://hooks.example.com/x", "must use https"],
    ["ftp://hooks.example.com/x", "must use https"],
    ["https://user:pw@hooks.example.com/x", "must not contain credentials"],
    ["https://user@hooks.example.com/x", "must not contain credentials"],
    ["https://localhost/x", "internal host name"],
    ["https://api.localhost/x", "internal host name"],
    ["https://printer.local/x", "internal host name"],
    ["https://db.internal/x", "internal host name"],
    ["https://router.home.arpa/x", "internal host name"],
    ["https://intranet/x", "internal host name"],
    ["https://127.0.0.1/x", "loopback"],
    ["https://127.1/x", "loopback"],
    ["https://2130706433/x", "loopback"],
    ["https://0x7f.0.0.1/x", "loopback"],
    ["https://0.0.0.0/x", "unspecified"],
    ["https://10.0.0.5/x", "private"],
    ["https://172.16.3.4/x", "private"],
    ["https://192.168.1.1/x", "private"],
    ["https://100.64.0.1/x", "carrierGradeNat"],
    ["https://169.254.169.254/latest/meta-data", "linkLocal"],
    ["https://224.0.0.1/x", "multicast"],
    ["https://255.255.255.255/x", "broadcast"],
    ["https://192.0.2.10/x", "reserved"],
    ["https://198.51.100.7/x", "reserved"],
    ["https://203.0.113.9/x", "reserved"],
    ["https://198.18.0.1/x", "reserved"],
    ["https://240.0.0.1/x", "reserved"],
    ["https://[::1]/x", "loopback"],
    ["https://[::]/x", "unspecified"],
    ["https://[::ffff:127.0.0.1]/x", "loopback"],
    ["https://[::ffff:7f00:1]/x", "loopback"],
    ["https://[::ffff:10.0.0.1]/x", "private"],
    ["https://[fe80::1]/x", "linkLocal"],
    ["https://[fc00::1]/x", "uniqueLocal"],
    ["https://[fd12:3456::1]/x", "uniqueLocal"],
    ["https://[ff02::1]/x", "multicast"],
    ["https://[2001:db8::1]/x", "reserved"],
    ["https://[64:ff9b::a00:1]/x", "rfc6052"],
    ["https://[2002:a00:1::]/x", "6to4"],
    ["https://[2001::1]/x", "teredo"],
    // IPv4-compatible IPv6 (::/96): the URL parser turns [::127.0.0.1] into [::7f00:1].
    ["https://[::127.0.0.1]/x", "ipv4Compatible"],
    ["https://[::7f00:1]/x", "ipv4Compatible"],
    ["https://[::a00:1]/x", "ipv4Compatible"],
    // Unicast to ipaddr.js, but outside global unicast 2000::/3.
    ["https://[4000::1]/x", "outside 2000::/3"],
    ["https://[100:0:0:1::1]/x", "outside 2000::/3"],
    ["not a url", "not a valid absolute URL"],
    // Receivers listen on 443 or 8443 only: no reaching other services on a public host.
    ["https://hooks.example.com:80/x", "must use port 443 or 8443"],
    ["https://hooks.example.com:8080/x", "must use port 443 or 8443"],
    ["https://hooks.example.com:22/x", "must use port 443 or 8443"],
    ["https://8.8.8.8:6379/x", "must use port 443 or 8443"],
    ["https://[2606:4700:4700::1111]:5432/x", "must use port 443 or 8443"],
  ])("refuses %s (%s)", (url, why) => {
    const verdict = checkUrl(url, false);
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.reason).toContain(why);
  });

  it.each([
    "https://hooks.example.com/x",
    "https://8.8.8.8/x",
    "https://[2606:4700:4700::1111]/x",
    "https://hooks.example.com:8443/x?a=1",
    "https://hooks.example.com:443/x",
  ])("accepts %s", (url) => {
    expect(checkUrl(url, false).ok).toBe(true);
  });

  it("normalises IPv4-mapped IPv6 before judging", () => {
    expect(addressRange("::ffff:8.8.8.8")).toBe("unicast");
    expect(isPublicAddress("::ffff:8.8.8.8")).toBe(true);
    expect(isPublicAddress("::ffff:192.168.0.1")).toBe(false);
  });

  it("the local-development switch allows http and private addresses, never credentials or other schemes", () => {
    expect(checkUrl("http://127.0.0.1:9999/hook", true).ok).toBe(true);
    expect(checkUrl("https://hooks.example.com:8080/hook", true).ok).toBe(true);
    expect(checkUrl("http://localhost/hook", true).ok).toBe(true);
    expect(checkUrl("http://u:p@localhost/hook", true).ok).toBe(false);
    expect(checkUrl("file:///etc/passwd", true).ok).toBe(false);
  });
});

describe("receiver URL guard: after DNS", () => {
  // A Resolver answers [] for a name that does not exist (NXDOMAIN) and rejects when the lookup failed.
  const resolver = (table: Record<string, string[]>) => async (host: string) => table[host] ?? [];
  const failing = (message: string) => async () => {
    throw new Error(message);
  };

  it.each([
    ["https://rebind.example/x", ["10.0.0.1"], "private"],
    ["https://meta.example/x", ["169.254.169.254"], "linkLocal"],
    ["https://mixed.example/x", ["8.8.8.8", "127.0.0.1"], "loopback"],
    ["https://v6.example/x", ["2606:4700::1", "::1"], "loopback"],
    ["https://mapped.example/x", ["::ffff:10.1.1.1"], "private"],
    ["https://compat.example/x", ["2606:4700::1", "::7f00:1"], "ipv4Compatible"],
  ])("refuses %s resolving to %j, for good", async (url, addresses, why) => {
    const verdict = await checkUrlResolved(url, false, resolver({ [new URL(url).hostname]: addresses }));
    expect(verdict).toMatchObject({ ok: false, reason: expect.stringContaining(why) });
    if (!verdict.ok) expect(verdict.transient).toBeFalsy();
  });

  it("refuses for good a name that does not exist, or has no address", async () => {
    for (const verdict of [
      await checkUrlResolved("https://nx.example/x", false, resolver({})),
      await checkUrlResolved("https://empty.example/x", false, resolver({ "empty.example": [] })),
    ]) {
      expect(verdict).toMatchObject({ ok: false, reason: "does not resolve to any address" });
      if (!verdict.ok) expect(verdict.transient).toBeFalsy();
    }
  });

  it("a failed lookup is transient (retried), not a refusal", async () => {
    for (const message of ["resolver answered SERVFAIL", "resolver timed out after 3000 ms", "resolver answered HTTP 503"]) {
      const verdict = await checkUrlResolved("https://flaky.example/x", false, failing(message));
      expect(verdict).toEqual({ ok: false, reason: `could not be resolved (${message})`, transient: true });
    }
  });

  it("accepts a name whose every address is public", async () => {
    const verdict = await checkUrlResolved("https://ok.example/x", false, resolver({ "ok.example": ["8.8.8.8", "2606:4700::1"] }));
    expect(verdict.ok).toBe(true);
  });
});

describe("receiver URL guard: at save", () => {
  const resolver = (table: Record<string, string[]>) => async (host: string) => table[host] ?? [];

  it("refuses a public name for a private address, and everything the shape check refuses", async () => {
    const table = { "localtest.me": ["127.0.0.1", "::1"], "127.0.0.1.nip.io": ["127.0.0.1"], "meta.example": ["169.254.169.254"] };
    expect(await checkUrlAtSave("https://localtest.me/x", false, resolver(table))).toEqual({
      ok: false,
      reason: "resolves to a non-public address (loopback)",
    });
    expect(await checkUrlAtSave("https://127.0.0.1.nip.io/x", false, resolver(table))).toMatchObject({ ok: false });
    expect(await checkUrlAtSave("https://meta.example/x", false, resolver(table))).toMatchObject({ ok: false });
    expect(await checkUrlAtSave("https://10.0.0.1/x", false, resolver(table))).toMatchObject({ ok: false });
    expect(await checkUrlAtSave("https://ok.example:8080/x", false, resolver({ "ok.example": ["8.8.8.8"] }))).toEqual({
      ok: false,
      reason: "must use port 443 or 8443",
    });
  });

  it("saves with a warning when the resolver fails or the name has no address, and without DNS under the local switch", async () => {
    const failing = async () => {
      throw new Error("resolver unreachable: fetch failed");
    };
    expect(await checkUrlAtSave("https://ok.example/x", false, failing)).toEqual({
      ok: true,
      warning: { code: "dns_unavailable", reason: "could not be resolved (resolver unreachable: fetch failed)" },
    });
    expect(await checkUrlAtSave("https://nx.example/x", false, resolver({}))).toEqual({
      ok: true,
      warning: { code: "dns_no_address", reason: "does not resolve to any address" },
    });
    expect(await checkUrlAtSave("https://ok.example/x", false, resolver({ "ok.example": ["8.8.8.8"] }))).toEqual({ ok: true });
    expect(await checkUrlAtSave("http://localtest.me:3000/x", true, failing)).toEqual({ ok: true });
  });
});

describe("the DNS-over-HTTPS resolver", () => {
  // A DoH server speaking the JSON API, answering per name: a Status, an HTTP status, or a hang.
  const script: Record<string, { status?: number; Status?: number; answers?: string[]; hang?: boolean }> = {
    "ok.example": { Status: 0, answers: ["8.8.8.8", "2606:4700::1"] },
    "nodata.example": { Status: 0 },
    "nx.example": { Status: 3 },
    "servfail.example": { Status: 2 },
    "refused.example": { Status: 5 },
    "http500.example": { status: 500 },
    "slow.example": { hang: true },
  };
  let server: Server;
  let url = "";
  beforeAll(async () => {
    server = createServer((req, res) => {
      const q = new URL(req.url ?? "/", "http://x").searchParams;
      const name = q.get("name") ?? "";
      const type = q.get("type") === "AAAA" ? 28 : 1;
      const entry = script[name] ?? { Status: 3 };
      if (entry.hang) return;
      const Answer = (entry.answers ?? []).filter((a) => (type === 28) === a.includes(":")).map((data) => ({ name, type, TTL: 60, data }));
      res.writeHead(entry.status ?? 200, { "content-type": "application/dns-json" }).end(JSON.stringify({ Status: entry.Status, Answer }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const addr = server.address();
    if (!addr || typeof addr === "string") throw new Error("doh did not bind");
    url = `http://127.0.0.1:${addr.port}/dns-query`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("answers addresses for NOERROR, and [] for NXDOMAIN or no records", async () => {
    const resolve = dohResolver(url);
    expect(await resolve("ok.example")).toEqual(["8.8.8.8", "2606:4700::1"]);
    expect(await resolve("nodata.example")).toEqual([]);
    expect(await resolve("nx.example")).toEqual([]);
    expect(await checkUrlResolved("https://ok.example/x", false, resolve)).toMatchObject({ ok: true });
    expect(await checkUrlResolved("https://nx.example/x", false, resolve)).toEqual({
      ok: false,
      reason: "does not resolve to any address",
      noAddress: true,
    });
  });

  it.each([
    ["servfail.example", "SERVFAIL"],
    ["refused.example", "REFUSED"],
    ["http500.example", "HTTP 500"],
    ["slow.example", "timed out after 200 ms"],
  ])("turns a resolver failure (%s) into a transient verdict", async (host, why) => {
    const verdict = await checkUrlResolved(`https://${host}/x`, false, dohResolver(url, 200));
    expect(verdict).toMatchObject({ ok: false, transient: true, reason: expect.stringContaining(why) });
  });

  it("an unreachable resolver is transient too", async () => {
    const verdict = await checkUrlResolved("https://ok.example/x", false, dohResolver("http://127.0.0.1:1/dns-query", 500));
    expect(verdict).toMatchObject({ ok: false, transient: true, reason: expect.stringContaining("could not be resolved") });
  });
});
