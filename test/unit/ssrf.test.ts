import { describe, expect, it } from "vitest";
import { addressRange, checkUrl, checkUrlResolved, isPublicAddress } from "../../src/webhooks/ssrf";

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
    ["not a url", "not a valid absolute URL"],
  ])("refuses %s (%s)", (url, why) => {
    const verdict = checkUrl(url, false);
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.reason).toContain(why);
  });

  it.each(["https://hooks.example.com/x", "https://8.8.8.8/x", "https://[2606:4700:4700::1111]/x", "https://hooks.example.com:8443/x?a=1"])(
    "accepts %s",
    (url) => {
      expect(checkUrl(url, false).ok).toBe(true);
    },
  );

  it("normalises IPv4-mapped IPv6 before judging", () => {
    expect(addressRange("::ffff:8.8.8.8")).toBe("unicast");
    expect(isPublicAddress("::ffff:8.8.8.8")).toBe(true);
    expect(isPublicAddress("::ffff:192.168.0.1")).toBe(false);
  });

  it("the local-development switch allows http and private addresses, never credentials or other schemes", () => {
    expect(checkUrl("http://127.0.0.1:9999/hook", true).ok).toBe(true);
    expect(checkUrl("http://localhost/hook", true).ok).toBe(true);
    expect(checkUrl("http://u:p@localhost/hook", true).ok).toBe(false);
    expect(checkUrl("file:///etc/passwd", true).ok).toBe(false);
  });
});

describe("receiver URL guard: after DNS", () => {
  const resolver = (table: Record<string, string[]>) => async (host: string) => {
    const hit = table[host];
    if (!hit) throw new Error("NXDOMAIN");
    return hit;
  };

  it.each([
    ["https://rebind.example/x", ["10.0.0.1"], "private"],
    ["https://meta.example/x", ["169.254.169.254"], "linkLocal"],
    ["https://mixed.example/x", ["8.8.8.8", "127.0.0.1"], "loopback"],
    ["https://v6.example/x", ["2606:4700::1", "::1"], "loopback"],
    ["https://mapped.example/x", ["::ffff:10.1.1.1"], "private"],
  ])("refuses %s resolving to %j", async (url, addresses, why) => {
    const verdict = await checkUrlResolved(url, false, resolver({ [new URL(url).hostname]: addresses }));
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.reason).toContain(why);
  });

  it("refuses a name that does not resolve, or resolves to nothing", async () => {
    expect((await checkUrlResolved("https://nx.example/x", false, resolver({}))).ok).toBe(false);
    expect((await checkUrlResolved("https://empty.example/x", false, resolver({ "empty.example": [] }))).ok).toBe(false);
  });

  it("accepts a name whose every address is public", async () => {
    const verdict = await checkUrlResolved("https://ok.example/x", false, resolver({ "ok.example": ["8.8.8.8", "2606:4700::1"] }));
    expect(verdict.ok).toBe(true);
  });
});
