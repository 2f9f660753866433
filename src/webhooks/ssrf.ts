// Receiver URL guard (SSRF). Checked when an endpoint is saved and again at every delivery,
// after DNS resolution: only public unicast addresses are reachable. Refused: loopback,
// private, link-local, CGNAT, multicast, broadcast, unspecified, documentation and other
// reserved ranges, NAT64/6to4/Teredo (they embed other addresses), IPv4-mapped IPv6 (judged as
// the IPv4 inside), internal host names, credentials in the URL, and any scheme but https.
// WEBHOOKS_ALLOW_PRIVATE_URLS=1 (local development only) lifts the address and scheme rules.
import ipaddr from "ipaddr.js";

export type UrlVerdict = { ok: true; url: URL } | { ok: false; reason: string };

const INTERNAL_SUFFIXES = [".localhost", ".local", ".internal", ".intranet", ".lan", ".home.arpa", ".corp", ".private"];

/** The range of an address, IPv4-mapped IPv6 normalised to IPv4 first. "unicast" is public. */
export function addressRange(address: string): string {
  const bare = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  if (!ipaddr.isValid(bare)) return "invalid";
  let parsed = ipaddr.parse(bare);
  if (parsed.kind() === "ipv6" && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range();
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
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  if (ipaddr.isValid(host.replace(/^\[|\]$/g, ""))) {
    return isPublicAddress(host) ? { ok: true, url } : { ok: false, reason: `points at a non-public address (${addressRange(host)})` };
  }
  if (!host.includes(".") || host === "localhost" || INTERNAL_SUFFIXES.some((s) => host.endsWith(s))) {
    return { ok: false, reason: "points at an internal host name" };
  }
  return { ok: true, url };
}

export type Resolver = (host: string) => Promise<string[]>;

/**
 * DNS over HTTPS (the JSON API of Cloudflare's and Google's resolvers), since Workers have no
 * resolver of their own. The endpoint is configuration: DNS_RESOLVER_URL.
 */
export const dohResolver =
  (endpoint: string, timeoutMs = 3000): Resolver =>
  async (host) => {
    const lookup = async (type: "A" | "AAAA") => {
      const res = await fetch(`${endpoint}?name=${encodeURIComponent(host)}&type=${type}`, {
        headers: { accept: "application/dns-json" },
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (!res.ok) throw new Error(`resolver answered ${res.status}`);
      const body = (await res.json()) as { Status?: number; Answer?: Array<{ type: number; data: string }> };
      return (body.Answer ?? []).filter((a) => a.type === (type === "A" ? 1 : 28)).map((a) => a.data);
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
    return { ok: false, reason: `could not be resolved (${(err as Error).message})` };
  }
  if (addresses.length === 0) return { ok: false, reason: "does not resolve to any address" };
  const bad = addresses.find((a) => !isPublicAddress(a));
  return bad ? { ok: false, reason: `resolves to a non-public address (${addressRange(bad)})` } : verdict;
}
