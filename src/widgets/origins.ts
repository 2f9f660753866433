// A widget's allowed origins: exact origins (`https://www.example.com`, `http://localhost:3000`)
// or every subdomain of a host (`https://*.example.com`). Compared with the browser's `Origin`
// header, which is already in canonical form (scheme://host[:port], lower case, punycode, no
// default port).

const WILDCARD = "*.";
const PLACEHOLDER = "wildcard-0.";

/** The canonical form of an allowed-origin entry, or null when it is not one. */
export function normalizeOrigin(entry: string): string | null {
  const value = entry.trim();
  const wildcard = /^https?:\/\/\*\./i.test(value);
  let url: URL;
  try {
    url = new URL(wildcard ? value.replace(WILDCARD, PLACEHOLDER) : value);
  } catch {
    return null;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return null;
  if (url.username || url.password || url.search || url.hash || (url.pathname !== "/" && url.pathname !== "")) return null;
  // Only "/" or nothing may follow the authority (the URL parser adds "/" either way).
  if (!/^https?:\/\/[^/?#]+\/?$/i.test(value)) return null;
  if (!url.hostname || url.hostname.endsWith(".") || url.hostname.includes("*")) return null;
  const origin = url.origin;
  if (!wildcard) return origin;
  // `*.` must cover at least one label below a name with a dot or `localhost`: not `https://*.com`.
  const base = url.hostname.slice(PLACEHOLDER.length);
  if (!base.includes(".") && base !== "localhost") return null;
  return origin.replace(PLACEHOLDER, WILDCARD);
}

/** Whether the page origin `origin` is allowed by `allowed` (canonical entries). */
export function originAllowed(origin: string | undefined | null, allowed: readonly string[]): boolean {
  if (!origin || origin === "null") return false;
  let page: URL;
  try {
    page = new URL(origin);
  } catch {
    return false;
  }
  if (page.origin !== origin) return false;
  for (const entry of allowed) {
    if (entry === origin) return true;
    if (!entry.includes("://*.")) continue;
    const [scheme, rest = ""] = entry.split("://*.");
    const colon = rest.lastIndexOf(":");
    const [host, port] = colon > -1 && !rest.endsWith("]") ? [rest.slice(0, colon), rest.slice(colon + 1)] : [rest, ""];
    if (`${scheme}:` === page.protocol && page.port === port && page.hostname.endsWith(`.${host}`)) return true;
  }
  return false;
}
