// Edge guards on request bodies: a size cap (413) and the content types a route accepts (415),
// both in the one error body.
import { bodyLimit } from "hono/body-limit";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../context";
import { ApiError } from "../lib/errors";

export const JSON_BODY_LIMIT = 256 * 1024;

export const limitBody = (maxSize: number) =>
  bodyLimit({
    maxSize,
    onError: () => {
      throw new ApiError("payload_too_large", `The body exceeds ${maxSize} bytes, the most this route accepts.`);
    },
  });

const hasBody = (req: Request) => req.headers.has("transfer-encoding") || Number(req.headers.get("content-length") ?? "0") > 0;

/** Requests with a body must send one of `types` (default: application/json). */
export const requireContentType = (types: string[] = ["application/json"]) =>
  createMiddleware<AppEnv>(async (c, next) => {
    if (["POST", "PUT", "PATCH"].includes(c.req.method) && hasBody(c.req.raw)) {
      const type = (c.req.header("content-type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
      if (!types.includes(type)) {
        throw new ApiError("unsupported_media_type", `Send the body as ${types.join(" or ")} (got ${type || "no Content-Type"}).`);
      }
    }
    return next();
  });

/**
 * CSRF for cookie-authenticated state changes: browsers send Sec-Fetch-Site and Origin; a
 * cross-site request is refused. Requests with a Bearer credential carry no ambient authority.
 */
export const sameOriginForCookies = createMiddleware<AppEnv>(async (c, next) => {
  const safe = ["GET", "HEAD", "OPTIONS"].includes(c.req.method);
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
});

export const CHAT_BODY_LIMIT = 1024 * 1024;
/** 25 MiB of audio plus room for the multipart framing. */
export const UPLOAD_BODY_LIMIT = 25 * 1024 * 1024 + 64 * 1024;
const UPLOAD_PATHS = new Set(["/v1/stt", "/v1/audio/transcriptions"]);
const CHAT_PATHS = new Set(["/v1/llm/chat", "/v1/chat/completions"]);
const limits = { json: limitBody(JSON_BODY_LIMIT), chat: limitBody(CHAT_BODY_LIMIT), upload: limitBody(UPLOAD_BODY_LIMIT) };
const types = { json: requireContentType(["application/json"]), upload: requireContentType(["multipart/form-data"]) };

/** /v1 bodies: audio uploads are multipart up to 25 MiB, chat JSON up to 1 MiB, the rest JSON up to 256 KiB. */
export const v1BodyPolicy = createMiddleware<AppEnv>(async (c, next) => {
  const upload = UPLOAD_PATHS.has(c.req.path);
  const limit = upload ? limits.upload : CHAT_PATHS.has(c.req.path) ? limits.chat : limits.json;
  return limit(c, async () => {
    await (upload ? types.upload : types.json)(c, next);
  });
});
