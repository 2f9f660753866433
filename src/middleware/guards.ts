// Edge guards on requests: the one input guard every request passes first (a size cap on every
// body, 413; strict UTF-8 and JSON, 400; no NUL or lone surrogate in any path segment, query
// parameter, JSON value or form field, 400 naming it), the content types a route accepts (415),
// and CSRF for cookie sessions, all in the one error body.
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { matchedRoutes } from "hono/route";
import type { AppEnv } from "../context";
import { decodeUtf8, parseUrlEncoded, readLimited } from "../lib/body";
import { ApiError } from "../lib/errors";
import { badName, findBadText, type TextIssue, textProblem } from "../lib/fields";
import { answers, CONTENT_METHODS, guardAnswersOf, SAFE_METHODS } from "../lib/guard-answers";
import { WIDGET_BODY_LIMIT } from "../routes/widget/shared";

export const JSON_BODY_LIMIT = 256 * 1024;
export const CHAT_BODY_LIMIT = 1024 * 1024;
/** 25 MiB of audio plus room for the multipart framing. */
export const UPLOAD_BODY_LIMIT = 25 * 1024 * 1024 + 64 * 1024;
const UPLOAD_PATHS = new Set(["/v1/stt", "/v1/audio/transcriptions"]);
const CHAT_PATHS = new Set(["/v1/llm/chat", "/v1/chat/completions"]);
/** A new campaign: its recipients as JSON rows or a CSV file (multipart), up to 10,000 of them (docs/campaigns.md, "Limits"), from the API or the dashboard's form. */
export const CAMPAIGN_BODY_LIMIT = 5 * 1024 * 1024;
const CAMPAIGN_PATH = "/v1/campaigns";
const CAMPAIGN_PATHS = new Set([CAMPAIGN_PATH, "/dashboard/campaigns"]);
/** A knowledge base's documents: a file (multipart) or text and URLs (JSON), on the API and the dashboard. */
const DOCUMENT_PATHS = /^\/(v1\/knowledge-bases|dashboard\/knowledge)\/[^/]+\/documents$/;

/**
 * The most bytes a body may have on `path`, whatever the method: audio and document uploads 25 MiB, a
 * new campaign 5 MiB, chat 1 MiB, the widget's public routes 16 KiB, every other route (the API, the dashboard and its
 * forms, telephony callbacks, QStash, the test receiver, and GET or DELETE with a body) 256 KiB.
 */
export function bodyLimitFor(path: string): number {
  if (UPLOAD_PATHS.has(path) || DOCUMENT_PATHS.test(path)) return UPLOAD_BODY_LIMIT;
  if (CAMPAIGN_PATHS.has(path)) return CAMPAIGN_BODY_LIMIT;
  if (CHAT_PATHS.has(path)) return CHAT_BODY_LIMIT;
  if (path.startsWith("/widget/")) return WIDGET_BODY_LIMIT;
  return JSON_BODY_LIMIT;
}

/** Methods whose body a route may read: checked and handed on. Other methods' bodies are only counted. */
const BODY_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

const refuse = (target: string, issue: TextIssue) =>
  new ApiError("validation_failed", `Invalid ${target}: ${issue.path}: ${issue.message}`, { issues: [issue] });

const decodeSegment = (segment: string) => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment; // not percent-decodable: the router keeps it as written, so it holds no NUL
  }
};

/** Path segments and query parameters: a NUL (%00) is refused, naming the parameter. */
function checkUrl(c: Context<AppEnv>): void {
  const url = new URL(c.req.url);
  if (url.pathname.includes("%")) {
    // The names of the parameters of the route that answers (`/v1/agents/:id`; middleware is "ALL").
    const pattern = (matchedRoutes(c).find((r) => r.method !== "ALL")?.path ?? "").split("/");
    url.pathname.split("/").forEach((segment, i) => {
      const problem = textProblem(decodeSegment(segment));
      const part = pattern[i] ?? "";
      if (problem) throw refuse("param", { path: part.startsWith(":") ? part.slice(1).replace(/\{.*$/, "") : "(path)", message: problem });
    });
  }
  for (const [name, value] of url.searchParams) {
    const issue = badName(name, "query parameter") ?? findBadText(value, name);
    if (issue) throw refuse("query", issue);
  }
}

/** Telegram's and WhatsApp's deliveries to a channel (src/routes/channels/). */
const PROVIDER_DELIVERY = /^\/channels\/(telegram|whatsapp)\/[^/]+$/;

const mediaTypeOf = (c: Context<AppEnv>) => (c.req.header("content-type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
const isJson = (type: string) => /^application\/([\w.-]+\+)?json$/.test(type);

/**
 * The body as routes will read it: strict UTF-8, then by media type: JSON parsed and every
 * string (keys too) checked; form names and values checked; other text checked whole. What was
 * decoded is left in Hono's body cache, so no route decodes the bytes again, more leniently.
 */
async function checkBody(c: Context<AppEnv>, bytes: Uint8Array): Promise<void> {
  const type = mediaTypeOf(c);
  // Hono keeps promises in its body cache (typed as the values), and converts from the first one
  // cached when asked for another form: the bytes go first.
  const cache = c.req.bodyCache as { arrayBuffer?: Promise<ArrayBuffer>; text?: Promise<string>; formData?: Promise<FormData> };
  const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
  cache.arrayBuffer = Promise.resolve((whole ? bytes.buffer : bytes.slice().buffer) as ArrayBuffer);
  if (bytes.byteLength === 0) return;
  if (isJson(type) || type.startsWith("text/") || type === "application/x-www-form-urlencoded") {
    const text = decodeUtf8(bytes);
    if (text === null) {
      throw isJson(type)
        ? new ApiError("invalid_json", "The request body is not valid JSON: it is not well-formed UTF-8.")
        : new ApiError("bad_request", "The request body is not well-formed UTF-8.");
    }
    cache.text = Promise.resolve(text);
    if (isJson(type)) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch (err) {
        throw new ApiError(
          "invalid_json",
          err instanceof RangeError ? "The request body nests too deeply." : "The request body is not valid JSON.",
        );
      }
      const issue = findBadText(parsed);
      // A provider's delivery is checked by its route (signature first), then made storable
      // (src/messaging/parsed.ts): refusing it would have the provider retry it into a stall.
      if (issue && !PROVIDER_DELIVERY.test(c.req.path)) throw refuse("json", issue);
    } else if (type === "application/x-www-form-urlencoded") {
      const pairs = parseUrlEncoded(text);
      if (!pairs) throw new ApiError("bad_request", "The form is not well-formed UTF-8 once percent-decoded.");
      for (const [name, value] of pairs) {
        const issue = badName(name, "form field") ?? findBadText(value, name);
        if (issue) throw refuse("form", issue);
      }
    } else {
      const problem = textProblem(text);
      if (problem) throw refuse("body", { path: "(body)", message: problem });
    }
  } else if (type === "multipart/form-data") {
    let form: FormData;
    try {
      form = await new Response(bytes, { headers: { "content-type": c.req.header("content-type") ?? "" } }).formData();
    } catch {
      return; // malformed: the route says so in its own terms (invalid_audio for uploads)
    }
    for (const [name, value] of form as unknown as Iterable<[string, string | File]>) {
      const issue =
        badName(name, "form field") ??
        (typeof value === "string" ? findBadText(value, name) : findBadText(value.name, `${name} (file name)`));
      if (issue) throw refuse("form", issue);
    }
    cache.formData = Promise.resolve(form);
  }
}

/**
 * The one input guard, mounted before every other route middleware (auth included), so every
 * request of every surface passes it, whatever its method. Bodies are read here, once, within
 * bodyLimitFor; routes read what was read here (c.req.raw is rebuilt on the bytes, and Hono's body
 * cache holds what was decoded).
 */
export const guardInput = answers(
  createMiddleware<AppEnv>(async (c, next) => {
    checkUrl(c);
    const bytes = await readLimited(c.req.raw, bodyLimitFor(c.req.path));
    if (bytes && BODY_METHODS.has(c.req.method)) {
      c.req.raw = new Request(c.req.raw, { body: bytes });
      await checkBody(c, bytes);
    }
    return next();
  }),
  (method, path) => [
    {
      status: 400,
      why: BODY_METHODS.has(method)
        ? "a NUL or lone surrogate in a path or query parameter, a JSON value or a form field, or a body that is not well-formed UTF-8 or JSON"
        : "a NUL or lone surrogate in a path or query parameter",
    },
    { status: 413, why: `a body over ${bodyLimitFor(path)} bytes, whatever the method (GET and DELETE too)` },
  ],
);

const hasBody = (req: Request) => req.headers.has("transfer-encoding") || Number(req.headers.get("content-length") ?? "0") > 0;

/** Requests with a body must send one of `types` (default: application/json). */
export const requireContentType = (types: string[] = ["application/json"]) =>
  answers(
    createMiddleware<AppEnv>(async (c, next) => {
      if (CONTENT_METHODS.has(c.req.method) && hasBody(c.req.raw)) {
        const type = (c.req.header("content-type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
        if (!types.includes(type)) {
          throw new ApiError("unsupported_media_type", `Send the body as ${types.join(" or ")} (got ${type || "no Content-Type"}).`);
        }
      }
      return next();
    }),
    (method) => (CONTENT_METHODS.has(method) ? [{ status: 415, why: `a body sent as other than ${types.join(" or ")}` }] : []),
  );

/**
 * For a route whose JSON body is optional: a request that names a type but sends no byte (clients
 * that set Content-Type on every request) is taken as one without a body, not as malformed JSON.
 */
export const emptyBodyIsNone = createMiddleware<AppEnv>(async (c, next) => {
  if (c.req.header("content-type") && (await c.req.arrayBuffer()).byteLength === 0) {
    const headers = new Headers(c.req.raw.headers);
    headers.delete("content-type");
    c.req.raw = new Request(c.req.raw, { headers });
  }
  return next();
});

/**
 * CSRF for cookie-authenticated state changes: browsers send Sec-Fetch-Site and Origin; a
 * cross-site request is refused. Requests with a Bearer credential carry no ambient authority.
 */
export const sameOriginForCookies = answers(
  createMiddleware<AppEnv>(async (c, next) => {
    const safe = SAFE_METHODS.has(c.req.method);
    const usesCookie = !c.req.header("authorization") && (c.req.header("cookie") ?? "").includes("session=");
    if (!safe && usesCookie) {
      const site = c.req.header("sec-fetch-site");
      const origin = c.req.header("origin");
      const own = new URL(c.req.url).origin;
      if (site === "cross-site" || (origin !== undefined && origin !== own)) {
        throw new ApiError("csrf_rejected", "Cross-site request refused. Use the dashboard, or an API key for integrations.");
      }
    }
    return next();
  }),
  (method) => (SAFE_METHODS.has(method) ? [] : [{ status: 403, why: "a cookie session's request from another site (csrf_rejected)" }]),
);

const types = {
  json: requireContentType(["application/json"]),
  upload: requireContentType(["multipart/form-data"]),
  document: requireContentType(["multipart/form-data", "application/json"]),
};

/** /v1 bodies: audio uploads are multipart, documents and new campaigns either, the rest JSON (their sizes: bodyLimitFor). */
const bodyTypeFor = (path: string) =>
  UPLOAD_PATHS.has(path) ? types.upload : DOCUMENT_PATHS.test(path) || path === CAMPAIGN_PATH ? types.document : types.json;
export const v1BodyPolicy = answers(
  createMiddleware<AppEnv>(async (c, next) => bodyTypeFor(c.req.path)(c, next)),
  (method, path) => guardAnswersOf(bodyTypeFor(path))?.(method, path) ?? [],
);
