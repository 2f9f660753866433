// Receiver URL guard (SSRF). Checked when an endpoint is saved and again at every delivery,
// after DNS resolution: only public unicast addresses are reachable. Refused: loopback,
// private, link-local, CGNAT, multicast, broadcast, unspecified, documentation and other
// reserved ranges, NAT64/6to4/Teredo (they embed other addresses), IPv4-mapped IPv6 (judged as
// the IPv4 inside), any other IPv6 address outside global unicast 2000::/3 (IPv4-compatible
// ::/96 included), internal host names, credentials in the URL, any scheme but https, and any
// port but 443 and 8443. At save a name that resolves to a non-public address is refused too;
// a lookup that fails, or finds no address, is a warning (the check is repeated at delivery).
// WEBHOOKS_ALLOW_PRIVATE_URLS=1 (local development only) lifts the address, port and scheme rules.
import ipaddr from "ipaddr.js";

/**
 * `transient` marks a refusal that may pass later (the resolver failed): the attempt is
 * retried. Every other refusal is permanent.
 */
export type UrlVerdict = { ok: true; url: URL } | { ok: false; reason: string; transient?: boolean; noAddress?: boolean };

/** The ports a receiver may listen on: HTTPS's own, and 8443, its common alternative. */
export const RECEIVER_PORTS = ["443", "8443"];

/** Global unicast: the only IPv6 block that holds public addresses. */
const GLOBAL_UNICAST = ipaddr.parseCIDR("2000::/3");
/** IPv4-compatible IPv6 (deprecated, RFC 4291): `::7f00:1` is 127.0.0.1 in disguise. */
const IPV4_COMPATIBLE = ipaddr.parseCIDR("::/96");

const INTERNAL_SUFFIXES = [".localhost", ".local", ".internal", ".intranet", ".lan", ".home.arpa", ".corp", ".private"];

/**
 * The range of an address, IPv4-mapped IPv6 normalised to IPv4 first. "unicast" is public: an
 * IPv6 address is only when ipaddr.js calls it unicast and it lies in 2000::/3.
 */
export function addressRange(address: string): string {
  const bare = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  if (!ipaddr.isValid(bare)) return "invalid";
  const parsed = ipaddr.parse(bare);
  if (parsed.kind() === "ipv4") return parsed.range();
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().range();
  const range = v6.range();
  if (range !== "unicast" || v6.match(GLOBAL_UNICAST)) return range;
  return v6.match(IPV4_COMPATIBLE) ? "ipv4Compatible" : "outside 2000::/3";
}

export const isPublicAddress = (address: string): boolean => addressRange(address) === "unicast";

/** The checks that need no DNS: scheme, credentials, literal addresses, internal names. */
export function checkUrl(raw: string, allowPrivate: boolean): UrlVerdict {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: "is not a valid absolute URL" };
  }
  if (url.username || url.password) return { ok: false, reason: "must not contain credentials" };
  if (allowPrivate) {
    if (url.protocol !== "https:" && url.protocol !== "http:") return { ok: false, reason: "must be http(s)" };
    return { ok: true, url };
  }
  if (url.protocol !== "https:") return { ok: false, reason: "must use https" };
  // The parser drops the scheme's default port: "" is 443.
  if (url.port && !RECEIVER_PORTS.includes(url.port)) return { ok: false, reason: `must use port ${RECEIVER_PORTS.join(" or ")}` };
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  if (ipaddr.isValid(host.replace(/^\[|\]$/g, ""))) {
    return isPublicAddress(host) ? { ok: true, url } : { ok: false, reason: `points at a non-public address (${addressRange(host)})` };
  }
  if (!host.includes(".") || host === "localhost" || INTERNAL_SUFFIXES.some((s) => host.endsWith(s))) {
    return { ok: false, reason: "points at an internal host name" };
  }
  return { ok: true, url };
}

/**
 * Resolves a host name to its addresses: `[]` when the name does not exist (NXDOMAIN) or has
 * no A/AAAA records; rejects when the lookup itself failed (network error, timeout, a non-OK
 * answer, SERVFAIL…), which is transient.
 */
export type Resolver = (host: string) => Promise<string[]>;

const DNS_STATUS: Record<number, string> = { 1: "FORMERR", 2: "SERVFAIL", 4: "NOTIMP", 5: "REFUSED" };
const NOERROR = 0;
const NXDOMAIN = 3;

/**
 * DNS over HTTPS (the JSON API of Cloudflare's and Google's resolvers), since Workers have no
 * resolver of their own. The endpoint is configuration: DNS_RESOLVER_URL.
 */
export const dohResolver =
  (endpoint: string, timeoutMs = 3000): Resolver =>
  async (host) => {
    const lookup = async (type: "A" | "AAAA") => {
      let res: Response;
      try {
        res = await fetch(`${endpoint}?name=${encodeURIComponent(host)}&type=${type}`, {
          headers: { accept: "application/dns-json" },
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (err) {
        const e = err as Error;
        throw new Error(e.name === "TimeoutError" ? `resolver timed out after ${timeoutMs} ms` : `resolver unreachable: ${e.message}`);
      }
      if (!res.ok) throw new Error(`resolver answered HTTP ${res.status}`);
      const body = (await res.json().catch(() => null)) as { Status?: number; Answer?: Array<{ type: number; data: string }> } | null;
      const status = body?.Status;
      if (status === NXDOMAIN) return [];
      if (status !== NOERROR) {
        throw new Error(`resolver answered ${status === undefined ? "something unreadable" : (DNS_STATUS[status] ?? `Status ${status}`)}`);
      }
      return (body?.Answer ?? []).filter((a) => a.type === (type === "A" ? 1 : 28)).map((a) => a.data);
    };
    const [a, aaaa] = await Promise.all([lookup("A"), lookup("AAAA")]);
    return [...a, ...aaaa];
  };

/** The full check at delivery time: the shape, then every address the name resolves to. */
export async function checkUrlResolved(raw: string, allowPrivate: boolean, resolve: Resolver): Promise<UrlVerdict> {
  const verdict = checkUrl(raw, allowPrivate);
  if (!verdict.ok || allowPrivate) return verdict;
  const host = verdict.url.hostname.replace(/^\[|\]$/g, "");
  if (ipaddr.isValid(host)) return verdict;
  let addresses: string[];
  try {
    addresses = await resolve(host);
  } catch (err) {
    // The lookup failed, not the name: try again later rather than refuse for good.
    return { ok: false, reason: `could not be resolved (${(err as Error).message})`, transient: true };
  }
  if (addresses.length === 0) return { ok: false, reason: "does not resolve to any address", noAddress: true };
  const bad = addresses.find((a) => !isPublicAddress(a));
  return bad ? { ok: false, reason: `resolves to a non-public address (${addressRange(bad)})` } : verdict;
}

/** How long a save waits for the resolver: a slow one becomes a warning, not a slow request. */
export const SAVE_DNS_TIMEOUT_MS = 2000;

/**
 * The check when a URL is saved: everything checkUrlResolved refuses for good is refused,
 * except a name with no address (it may be created later). A failed lookup, or no address, is
 * a warning: the URL is saved and the full check runs again before every delivery.
 */
export async function checkUrlAtSave(
  raw: string,
  allowPrivate: boolean,
  resolve: Resolver,
): Promise<{ ok: true; warning?: { code: "dns_unavailable" | "dns_no_address"; reason: string } } | { ok: false; reason: string }> {
  const verdict = await checkUrlResolved(raw, allowPrivate, resolve);
  if (verdict.ok) return { ok: true };
  if (verdict.transient) return { ok: true, warning: { code: "dns_unavailable", reason: verdict.reason } };
  if (verdict.noAddress) return { ok: true, warning: { code: "dns_no_address", reason: verdict.reason } };
  return { ok: false, reason: verdict.reason };
}
