// Importing a URL (src/knowledge/fetch-url.ts) under the SSRF rules, with the network stood in for:
// `fetch` is stubbed, answering the DNS-over-HTTPS resolver from a table and each site from a
// script. What an end-to-end test cannot reach offline is proven here: a public https site that
// redirects to a private address (by name or literally) is refused before the redirect is
// followed, and the time limit and the size limit hold while a body is being read.
import { afterEach, describe, expect, it, vi } from "vitest";
import { fetchDocument } from "../../../src/knowledge/fetch-url";
import { ApiError } from "../../../src/lib/errors";

const DOH = "https://doh.test/dns-query";
const config = {
  WEBHOOKS_ALLOW_PRIVATE_URLS: false,
  DNS_RESOLVER_URL: DOH,
  KNOWLEDGE_MAX_FILE_BYTES: 1000,
  KNOWLEDGE_URL_TIMEOUT_MS: 200,
};

const DNS: Record<string, string[]> = {
  "docs.example.com": ["93.184.216.34"],
  "cdn.example.com": ["2606:4700::1111"],
  "intranet.example.com": ["10.0.0.5"],
  "sneaky.example.com": ["93.184.216.35", "192.168.1.20"],
};

type Site = (url: URL, init: RequestInit) => Response | Promise<Response>;

/** Stubs fetch: the resolver answers from DNS, every other URL from `site`; returns the URLs fetched (not the resolver's). */
function network(site: Site): string[] {
  const fetched: string[] = [];
  vi.stubGlobal("fetch", async (input: string | URL, init: RequestInit = {}) => {
    const url = new URL(String(input));
    if (url.href.startsWith(DOH)) {
      const name = url.searchParams.get("name") ?? "";
      const type = url.searchParams.get("type") === "AAAA" ? 28 : 1;
      const answers = (DNS[name] ?? []).filter((a) => (type === 28) === a.includes(":")).map((data) => ({ name, type, data }));
      return Response.json({ Status: DNS[name] ? 0 : 3, Answer: answers });
    }
    fetched.push(url.href);
    return site(url, init);
  });
  return fetched;
}

const redirect = (location: string, status = 302) => new Response(null, { status, headers: { location } });

async function refusal(url: string): Promise<ApiError> {
  const err = await fetchDocument(config, url).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("fetchDocument", () => {
  it("follows a redirect to a public site and says where the document was found", async () => {
    const fetched = network((url) =>
      url.pathname === "/old" ? redirect("/prices.md", 301) : new Response("# Prices", { headers: { "content-type": "text/markdown" } }),
    );
    const doc = await fetchDocument(config, "https://docs.example.com/old");
    expect(new TextDecoder().decode(doc.bytes)).toBe("# Prices");
    expect(doc).toMatchObject({ contentType: "text/markdown", url: "https://docs.example.com/prices.md" });
    expect(fetched).toEqual(["https://docs.example.com/old", "https://docs.example.com/prices.md"]);
  });

  it.each([
    [
      "a name that resolves to a private address",
      "https://intranet.example.com/secrets",
      /redirects to .*intranet.*resolves to a non-public address \(private\)/,
    ],
    ["a name with one private address among public ones", "https://sneaky.example.com/", /resolves to a non-public address \(private\)/],
    [
      "a loopback address",
      "https://127.0.0.1/admin",
      /redirects to https:\/\/127\.0\.0\.1\/admin, which points at a non-public address \(loopback\)/,
    ],
    ["the metadata address", "https://169.254.169.254/latest/meta-data/", /non-public address \(linkLocal\)/],
    ["an IPv4-mapped loopback", "https://[::ffff:127.0.0.1]/", /non-public address \(loopback\)/],
    ["plain http", "http://docs.example.com/prices.md", /must use https/],
    ["another port", "https://docs.example.com:6379/", /must use port 443 or 8443/],
    ["an internal name", "https://printer.local/", /internal host name/],
  ])("refuses a redirect to %s, and never fetches it", async (_what, target, why) => {
    const fetched = network(() => redirect(target));
    const err = await refusal("https://docs.example.com/faq");
    expect(err.code).toBe("url_fetch_failed");
    expect(err.message).toMatch(why);
    expect(err.message).toMatch(/^Could not import https:\/\/docs\.example\.com\/faq: .*Nothing was stored\.$/);
    expect(fetched).toEqual(["https://docs.example.com/faq"]);
  });

  it("refuses the URL itself when it is private, fetching nothing", async () => {
    const fetched = network(() => new Response("never"));
    expect((await refusal("https://intranet.example.com/")).message).toMatch(/the URL resolves to a non-public address \(private\)/);
    expect((await refusal("https://nowhere.example.com/")).message).toMatch(/the URL does not resolve to any address/);
    expect(fetched).toEqual([]);
  });

  it("follows five redirects, and refuses the sixth", async () => {
    let hops = 0;
    network(() => redirect(`/hop/${++hops}`));
    expect((await refusal("https://docs.example.com/start")).message).toMatch(/redirects more than 5 times/);
    expect(hops).toBe(6);
    hops = 0;
    network((url) => (url.pathname === "/hop/5" ? new Response("found") : redirect(`/hop/${++hops}`)));
    expect((await fetchDocument(config, "https://docs.example.com/start")).url).toBe("https://docs.example.com/hop/5");
  });

  it("refuses a non-2xx answer, a 3xx without Location among them", async () => {
    network((url) => {
      const status = Number(url.pathname.slice(1));
      return new Response(status < 400 ? null : "no", { status });
    });
    for (const status of [404, 410, 500, 302, 304]) {
      expect((await refusal(`https://docs.example.com/${status}`)).message).toContain(`it answered HTTP ${status}`);
    }
  });

  it("gives up on a site that does not answer, or stops sending, within KNOWLEDGE_URL_TIMEOUT_MS", async () => {
    const hang = (init: RequestInit) =>
      new Promise<never>((_resolve, reject) => init.signal?.addEventListener("abort", () => reject(init.signal?.reason)));
    network((_url, init) => hang(init));
    expect((await refusal("https://docs.example.com/slow")).message).toMatch(/it did not answer within 0\.2 s/);

    network(
      (_url, init) =>
        new Response(
          new ReadableStream({
            start(controller) {
              controller.enqueue(new TextEncoder().encode("# Half"));
              init.signal?.addEventListener("abort", () => controller.error(init.signal?.reason));
            },
          }),
        ),
    );
    expect((await refusal("https://docs.example.com/trickle")).message).toMatch(/it did not finish within 0\.2 s/);
  });

  it("refuses a document over KNOWLEDGE_MAX_FILE_BYTES, declared or streamed, as a 413", async () => {
    network((url) =>
      url.pathname === "/declared"
        ? new Response("x", { headers: { "content-length": "5000" } })
        : new Response(
            new ReadableStream({
              pull(controller) {
                controller.enqueue(new Uint8Array(400));
              },
            }),
          ),
    );
    for (const path of ["/declared", "/streamed"]) {
      const err = await refusal(`https://docs.example.com${path}`);
      expect(err.code).toBe("payload_too_large");
      expect(err.message).toMatch(/larger than 1000 bytes, the most a document may be/);
    }
  });
});
