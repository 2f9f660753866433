// Bad input on every route of the route table (test/support/routes.ts), refused by the one input guard
// every request passes first (src/middleware/guards.ts), before auth and any database or
// provider work:
// - NUL or a lone surrogate in a path parameter, query parameter, JSON value or key, urlencoded
//   or multipart form field: 400 validation_failed naming the field;
// - JSON (and text, and forms) that is not well-formed UTF-8: 400 invalid_json / bad_request;
// - a body over the route's limit, on any method (GET and DELETE too), declared or chunked: 413;
// - a chunked body over the limit leaves the connection and the worker usable;
// - list filters (createdAfter / createdBefore) outside what Postgres stores: 400;
// - a query parameter an API operation does not define (/v1, the delivery log): 400
//   validation_failed naming it, on every operation (src/context.ts, createApiRouter); the
//   other surfaces (providers' callbacks, the widget, the document) still ignore extra ones.
import { randomUUID } from "node:crypto";
import { Agent } from "node:http";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { csrfToken } from "../../src/dashboard/session";
import { organizations, usageEvents } from "../../src/db/schema";
import { bodyLimitFor } from "../../src/middleware/guards";
import { OPENAPI_PATH, openApiConfig } from "../../src/routes/public/openapi";
import { baseUrl, createWorkspace, expectError, json, request, signIn, testDb, type Workspace } from "../support/harness";
import { type Answer, send } from "../support/http";
import { type Params, ROUTES, type RouteCase } from "../support/routes";
import { createWidget, SITE, visitor, widgetRequest } from "../support/widgets";

/** Fills `:name` parameters from `params`, and any other with a fresh UUID. */
const fill = (path: string, params: Params = {}) => path.replace(/:(\w+)/g, (_, name: string) => params[name] ?? randomUUID());

/** A dashboard HTML page (its errors render as pages), not the dashboard's JSON API. */
const isPage = (path: string) => path.startsWith("/dashboard") && !path.startsWith("/dashboard/api/");

/** The one error body, from an answer of `send` (a page answers HTML with the same status). */
function refusal(answer: Answer, status: number, code: string, route?: RouteCase) {
  if (route && isPage(route.path)) {
    expect(answer.status, answer.text.slice(0, 300)).toBe(status);
    expect(String(answer.headers["content-type"])).toContain("text/html");
    return { message: answer.text, issues: undefined as Array<{ path: string; message: string }> | undefined };
  }
  return expectError(new Response(answer.text, { status: answer.status, headers: answer.headers as Record<string, string> }), status, code);
}

let owner: Workspace;
let session: { cookie: string; csrf: string };

/** The credentials a route takes, for the owner's workspace (none for public routes). */
function credentials(route: RouteCase): Record<string, string> {
  if (route.auth === "api_key") return { authorization: `Bearer ${owner.apiKey}` };
  if (route.auth === "session") return { cookie: session.cookie, "x-organization-id": owner.organizationId };
  if (route.auth === "page") return { cookie: session.cookie, origin: baseUrl() };
  return route.path.startsWith("/widget/") ? { origin: SITE } : {};
}

const utf8 = (s: string) => new TextEncoder().encode(s);

/** The route's JSON body with its first string (depth-first) replaced by `bad`; or `{probe: bad}`. */
function withBadString(body: unknown, bad: string): { body: unknown; path: string } {
  const walk = (v: unknown, path: string): { value: unknown; path: string } | null => {
    if (typeof v === "string") return { value: bad, path };
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const hit = walk(v[i], path ? `${path}.${i}` : String(i));
        if (hit) return { value: v.map((x, j) => (j === i ? hit.value : x)), path: hit.path };
      }
    } else if (typeof v === "object" && v !== null) {
      for (const [k, x] of Object.entries(v)) {
        const hit = walk(x, path ? `${path}.${k}` : k);
        if (hit) return { value: { ...v, [k]: hit.value }, path: hit.path };
      }
    }
    return null;
  };
  const hit = walk(body, "");
  if (hit) return { body: hit.value, path: hit.path };
  return { body: { ...(typeof body === "object" && body !== null ? body : {}), probe: bad }, path: "probe" };
}

const BODY_METHODS = new Set(["POST", "PATCH", "PUT", "DELETE"]);
/** Routes a JSON body can be sent to: every body method but the HTML pages' forms and the uploads. */
/**
 * Telegram's and WhatsApp's deliveries are the exception: authenticated first, then made storable
 * (a 400 would be retried into a stall); messaging/deliveries.test.ts proves both.
 */
const isProviderDelivery = (r: { method: string; path: string }) =>
  r.method === "POST" && /^\/channels\/(telegram|whatsapp)\//.test(r.path);
const jsonRoutes = ROUTES.filter((r) => BODY_METHODS.has(r.method) && !isPage(r.path) && !r.form && !isProviderDelivery(r));
const pageForms = ROUTES.filter((r) => r.method === "POST" && isPage(r.path));
const uploads = ROUTES.filter((r) => r.form);
const withParams = ROUTES.filter((r) => r.path.includes(":"));

beforeAll(async () => {
  owner = await createWorkspace("bad input");
  const signed = await signIn(owner.admin.email, owner.admin.password);
  session = { cookie: signed.cookie, csrf: await csrfToken(signed.token) };
});

describe("item 1: NUL and lone surrogates are a 400 naming the field, on every route", () => {
  it("covers the route table", () => {
    expect(ROUTES.length).toBeGreaterThan(100);
    expect(jsonRoutes.length).toBeGreaterThan(40);
    expect(pageForms.length).toBeGreaterThan(20);
    expect(uploads.map((r) => r.path).sort()).toEqual(["/v1/audio/transcriptions", "/v1/stt"]);
  });

  it.each(ROUTES)("$method $path: NUL in a query parameter", async (route) => {
    const res = await send(route.method, `${fill(route.path)}?probe=a%00b`, { headers: credentials(route) });
    const err = await refusal(res, 400, "validation_failed", route);
    expect(err.message).toContain("probe");
    if (err.issues) expect(err.issues).toEqual([{ path: "probe", message: "must not contain NUL (U+0000)" }]);
  });

  it.each(withParams)("$method $path: NUL in a path parameter", async (route) => {
    const name = /:(\w+)/.exec(route.path)?.[1] as string;
    const res = await send(route.method, fill(route.path, { [name]: "ab%00cd" }), { headers: credentials(route) });
    const err = await refusal(res, 400, "validation_failed", route);
    expect(err.message).toContain(name);
    if (err.issues) expect(err.issues.map((i) => i.path)).toEqual([name]);
  });

  describe.each(jsonRoutes)("$method $path: JSON body", (route) => {
    it.each([
      ["NUL", "a\u0000b", "must not contain NUL (U+0000)"],
      ["a lone high surrogate", "a\uD800b", "must be well-formed Unicode (no lone surrogates)"],
      ["a lone low surrogate", "\uDC00", "must be well-formed Unicode (no lone surrogates)"],
    ])("%s in a value", async (_, bad, message) => {
      const { body, path } = withBadString(route.body ?? {}, bad);
      const res = await send(route.method, fill(route.path), {
        headers: { ...credentials(route), "content-type": "application/json" },
        body: utf8(JSON.stringify(body)),
      });
      const err = await refusal(res, 400, "validation_failed", route);
      expect(err.issues).toEqual([{ path, message }]);
    });

    it("NUL in a property name", async () => {
      const body = { ...(route.body as object), "a\u0000": 1 };
      const res = await send(route.method, fill(route.path), {
        headers: { ...credentials(route), "content-type": "application/json" },
        body: utf8(JSON.stringify(body)),
      });
      const err = await refusal(res, 400, "validation_failed", route);
      expect(err.issues).toEqual([{ path: "a\uFFFD", message: "property name must not contain NUL (U+0000)" }]);
      expect(err.message).not.toContain("\u0000");
    });
  });

  it.each(pageForms)("$method $path: NUL in a dashboard form field (urlencoded and multipart)", async (route) => {
    const fields = { ...(route.fields ?? {}), _csrf: session.csrf };
    const name = Object.keys(route.fields ?? {})[0] ?? "probe";
    const bad = { ...fields, [name]: "a\u0000b" };
    const urlencoded = await send(route.method, fill(route.path), {
      headers: { ...credentials(route), "content-type": "application/x-www-form-urlencoded" },
      body: utf8(new URLSearchParams(bad).toString()),
    });
    expect((await refusal(urlencoded, 400, "validation_failed", route)).message).toContain(`Invalid form: ${name}: must not contain NUL`);
    const form = new FormData();
    for (const [k, v] of Object.entries(bad)) form.set(k, v);
    const multipart = new Request("http://x/", { method: "POST", body: form });
    const res = await send(route.method, fill(route.path), {
      headers: { ...credentials(route), "content-type": multipart.headers.get("content-type") as string },
      body: new Uint8Array(await multipart.arrayBuffer()),
    });
    expect((await refusal(res, 400, "validation_failed", route)).message).toContain(`Invalid form: ${name}: must not contain NUL`);
  });

  it.each(uploads)("$method $path: NUL in the multipart fields `model` and `language` (and the file name)", async (route) => {
    const make = route.form as () => FormData;
    for (const [name, value] of [
      ["model", "whisper\u0000"],
      ["language", "e\u0000n"],
    ] as const) {
      const form = make();
      form.set(name, value);
      const res = await fetch(baseUrl() + route.path, { method: "POST", headers: credentials(route), body: form });
      const err = await expectError(res, 400, "validation_failed");
      expect(err.issues?.map((i) => i.path)).toEqual([name]);
    }
    // A NUL in the file name breaks the part's headers: the runtime refuses the multipart body (400).
    const form = make();
    form.set("file", new Blob([new Uint8Array(44)], { type: "audio/wav" }), "a\u0000.wav");
    const res = await fetch(baseUrl() + route.path, { method: "POST", headers: credentials(route), body: form });
    expect(res.status).toBe(400);
  });

  it("the issue's cases: NUL in chat's `model`, in speech's `model` and `voice`: 400 naming it, nothing metered", async () => {
    const ws = await createWorkspace();
    const credits = async () =>
      (await testDb().select({ m: organizations.creditsMicro }).from(organizations).where(eq(organizations.id, ws.organizationId)))[0]?.m;
    const before = await credits();
    const cases: Array<[string, unknown, string]> = [
      ["/v1/llm/chat", { model: "x\u0000", messages: [{ role: "user", content: "Hi" }] }, "model"],
      ["/v1/chat/completions", { model: "x\u0000", messages: [{ role: "user", content: "Hi" }] }, "model"],
      ["/v1/chat/completions", { model: "sandbox-chat", messages: [{ role: "user", content: "Hi\uD800" }] }, "messages.0.content"],
      ["/v1/audio/speech", { model: "tts-1\u0000", input: "Hello.", voice: "alloy" }, "model"],
      ["/v1/audio/speech", { model: "tts-1", input: "Hello.", voice: "al\u0000loy" }, "voice"],
      ["/v1/tts", { text: "Hello.", voiceId: "00000000-0000-7000-8000-000000000001", model: "\u0000" }, "model"],
    ];
    for (const [path, body, field] of cases) {
      const err = await expectError(await ws.api(path, { method: "POST", json: body }), 400, "validation_failed");
      expect(
        err.issues?.map((i) => i.path),
        path,
      ).toEqual([field]);
      expect(err.message).toBe(`Invalid json: ${field}: ${err.issues?.[0]?.message}`);
    }
    expect(await testDb().select().from(usageEvents).where(eq(usageEvents.organizationId, ws.organizationId))).toEqual([]);
    expect(await credits()).toBe(before);
  });

  it("the widget's public routes: the token, the chat message, the visitor id, the text/plain end body", async () => {
    const widget = await createWidget(await createWorkspace());
    const token = await expectError(await widgetRequest("/widget/v1/config", { token: "wt_\u0000" }), 400, "validation_failed");
    expect(token.issues).toEqual([{ path: "token", message: "must not contain NUL (U+0000)" }]);
    const chat = await widgetRequest("/widget/v1/chat", { token: widget.token, json: { visitorId: visitor(), message: "a\u0000b" } });
    expect((await expectError(chat, 400, "validation_failed")).issues).toEqual([
      { path: "message", message: "must not contain NUL (U+0000)" },
    ]);
    const call = await widgetRequest("/widget/v1/web-call", { token: widget.token, json: { visitorId: "v_\uD800" } });
    expect((await expectError(call, 400, "validation_failed")).issues?.map((i) => i.path)).toEqual(["visitorId"]);
    const end = await widgetRequest(`/widget/v1/sessions/${randomUUID()}/end`, {
      token: widget.token,
      body: `{"visitorId":"${visitor()}\u0000"}`,
      headers: { "content-type": "text/plain" },
    });
    expect((await expectError(end, 400, "validation_failed")).issues?.map((i) => i.path)).toEqual(["(body)"]);
  });

  it("Twilio's urlencoded status callback: a NUL field is refused before the signature check", async () => {
    const res = await send("POST", `/telephony/twilio/status/${randomUUID()}`, {
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: utf8("CallSid=CA1&CallStatus=ring%00ing"),
    });
    expect((await refusal(res, 400, "validation_failed")).issues).toEqual([
      { path: "CallStatus", message: "must not contain NUL (U+0000)" },
    ]);
  });
});

describe("item 4: bodies that are not well-formed UTF-8 are refused, never stored as U+FFFD", () => {
  const invalid = new Uint8Array([0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80]);
  const jsonWith = (prefix: string, bytes: Uint8Array, suffix: string) => new Uint8Array([...utf8(prefix), ...bytes, ...utf8(suffix)]);

  it("the issue's case: FF FE C3 28 ED A0 80 in an agent's name is malformed JSON (400), and no agent is made", async () => {
    const ws = await createWorkspace();
    const body = jsonWith('{"name":"a', invalid, '","personaId":"0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77"}');
    const res = await send("POST", "/v1/agents", {
      headers: { authorization: `Bearer ${ws.apiKey}`, "content-type": "application/json" },
      body,
    });
    const err = await refusal(res, 400, "invalid_json");
    expect(err.message).toContain("UTF-8");
    expect((await json<{ data: unknown[] }>(await ws.api("/v1/agents"))).data).toEqual([]);
  });

  it.each([
    ["a lone continuation byte", [0x80]],
    ["an overlong encoding", [0xc0, 0xaf]],
    ["an encoded surrogate (CESU-8)", [0xed, 0xa0, 0x80]],
    ["a truncated sequence", [0xe2, 0x82]],
    ["a code point past U+10FFFF", [0xf4, 0x90, 0x80, 0x80]],
  ])("%s", async (_, bytes) => {
    const res = await send("POST", "/v1/agents", {
      headers: { authorization: `Bearer ${owner.apiKey}`, "content-type": "application/json" },
      body: jsonWith('{"name":"', new Uint8Array(bytes), '","personaId":"0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77"}'),
    });
    await refusal(res, 400, "invalid_json");
  });

  it.each(jsonRoutes)("$method $path", async (route) => {
    const res = await send(route.method, fill(route.path), {
      headers: { ...credentials(route), "content-type": "application/json" },
      body: jsonWith('{"probe":"', invalid, '"}'),
    });
    await refusal(res, 400, "invalid_json", route);
  });

  it("a dashboard form whose percent-decoded bytes are not UTF-8 (400), and text/plain (400)", async () => {
    const route = ROUTES.find((r) => r.method === "POST" && r.path === "/dashboard/agents") as RouteCase;
    const res = await send("POST", route.path, {
      headers: { ...credentials(route), "content-type": "application/x-www-form-urlencoded" },
      body: utf8(`_csrf=${session.csrf}&name=%FF%FE&personaId=0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77`),
    });
    expect((await refusal(res, 400, "bad_request", route)).message).toContain("UTF-8");
    const widget = await createWidget(await createWorkspace());
    const end = await send("POST", `/widget/v1/sessions/${randomUUID()}/end?token=${widget.token}`, {
      headers: { origin: SITE, "content-type": "text/plain" },
      body: jsonWith('{"visitorId":"', invalid, '"}'),
    });
    await refusal(end, 400, "bad_request");
  });

  it("well-formed UTF-8 (accents, CJK, emoji) is stored as sent", async () => {
    const name = "Zoë 名前 😀";
    const res = await owner.api("/v1/agents", { method: "POST", json: { name, personaId: "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77" } });
    expect(res.status).toBe(201);
    expect((await json<{ name: string }>(res)).name).toBe(name);
  });
});

describe("item 6: the body limit covers every route and method", () => {
  describe.each(ROUTES)("$method $path", (route) => {
    const path = fill(route.path);
    const limit = bodyLimitFor(path);
    const over = new Uint8Array(limit + 1).fill(0x61);

    it.each([
      ["with a Content-Length", false],
      ["chunked", true],
    ])(`refuses ${limit + 1} bytes %s (413)`, async (_, chunked) => {
      const res = await send(route.method, path, {
        headers: { ...credentials(route), "content-type": "application/json" },
        body: over,
        chunked,
      });
      const err = await refusal(res, 413, "payload_too_large", route);
      expect(err.message).toContain(`${limit} bytes`);
    });
  });

  it("GET /webhooks/:id/deliveries with a 10 MB body (the issue's case): 413", async () => {
    const res = await send("GET", `/webhooks/${randomUUID()}/deliveries`, {
      headers: { authorization: `Bearer ${owner.apiKey}` },
      body: new Uint8Array(10 * 1024 * 1024),
    });
    await refusal(res, 413, "payload_too_large");
  });

  it("a body within the limit on a GET is ignored (200)", async () => {
    const res = await send("GET", "/v1/agents", {
      headers: { authorization: `Bearer ${owner.apiKey}`, "content-type": "application/json" },
      body: utf8('{"ignored":true}'),
      chunked: true,
    });
    expect(res.status).toBe(200);
  });
});

describe("item 5: a chunked body over the limit leaves the connection and the worker usable", () => {
  it("300 KB chunked to POST /v1/me is a 413, then 10 requests (same connection, new ones, two workspaces) answer normally", async () => {
    const other = await createWorkspace("other");
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const big = await send("POST", "/v1/me", {
        headers: { authorization: `Bearer ${owner.apiKey}`, "content-type": "application/json" },
        body: new Uint8Array(300 * 1024).fill(0x61),
        chunked: true,
        agent,
      });
      await refusal(big, 413, "payload_too_large");
      const answers: string[] = [];
      for (let i = 0; i < 10; i++) {
        const ws = i % 2 === 0 ? owner : other;
        const auth = { authorization: `Bearer ${ws.apiKey}` };
        // Alternating: the kept connection and new ones; a POST (not retried by wrangler's proxy) and a GET.
        const through = i % 3 === 2 ? undefined : agent;
        const res =
          i % 2 === 0
            ? await send("POST", "/v1/agents", {
                headers: { ...auth, "content-type": "application/json" },
                body: utf8(JSON.stringify({ name: `after 413 #${i}`, personaId: "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77" })),
                agent: through,
              })
            : await send("GET", "/v1/me", { headers: auth, agent: through });
        answers.push(`${i}: ${res.status} ${res.status >= 400 ? res.text.slice(0, 120) : ""}`);
        expect(res.status, answers.join("\n")).toBe(i % 2 === 0 ? 201 : 200);
      }
    } finally {
      agent.destroy();
    }
  });
});

describe("item 3: list filters outside what Postgres stores are a 400, on every list route", () => {
  // The list routes: those whose OpenAPI operation takes `createdAfter`.
  const doc = createApp().getOpenAPI31Document(openApiConfig("http://localhost"));
  const lists = ROUTES.filter((r) => {
    const op = (doc.paths?.[r.path.replace(/:(\w+)/g, "{$1}")] as Record<string, { parameters?: Array<{ name: string }> }> | undefined)?.[
      r.method.toLowerCase()
    ];
    return op?.parameters?.some((p) => p.name === "createdAfter");
  });

  it("finds the list routes", () => {
    expect(lists.length).toBeGreaterThanOrEqual(8);
  });

  describe.each(lists)("$method $path", (route) => {
    const list = async (query: string) => {
      const params = route.resource ? await route.resource(owner) : {};
      return send(route.method, `${fill(route.path, params)}?${query}`, { headers: credentials(route) });
    };

    it.each([
      ["createdAfter", "0000-01-01T00:00:00Z"],
      ["createdBefore", "0000-01-01T00:00:00Z"],
      ["createdAfter", "0001-01-01T00:30:00+01:00"],
      ["createdBefore", "9999-12-31T23:59:59-00:01"],
    ])("%s=%s: 400 naming it", async (name, value) => {
      const err = await refusal(await list(`${name}=${encodeURIComponent(value)}`), 400, "validation_failed", route);
      expect(err.issues?.map((i) => i.path)).toEqual([name]);
    });

    it("the first and last instants Postgres stores with four-digit years: 200", async () => {
      const res = await list("createdAfter=0001-01-01T00:00:00Z&createdBefore=9999-12-31T23:59:59.999Z");
      expect(res.status, res.text.slice(0, 200)).toBe(200);
    });
  });
});

describe("item 7: an API operation refuses query parameters it does not define", () => {
  // The API's operations: every /v1 route but the document (a static file), and the spec's delivery log.
  const apiRoutes = ROUTES.filter((r) => r.auth === "api_key");
  const unknown = { message: "Invalid query: (root): unknown field: zzz", issues: [{ path: "(root)", message: "unknown field: zzz" }] };

  /** The route's request, as in the route table (its resource, its valid body or form), with `query`. */
  async function call(route: RouteCase, query: string): Promise<Response> {
    const params = route.resource ? await route.resource(owner) : {};
    return request(`${fill(route.path, params)}?${query}`, {
      method: route.method,
      headers: credentials(route),
      ...(route.form ? { body: route.form() } : route.body !== undefined ? { json: route.body } : {}),
    });
  }

  it("covers every /v1 route of the table but the document", () => {
    const v1 = ROUTES.filter((r) => r.path.startsWith("/v1/") && r.path !== OPENAPI_PATH);
    expect(v1.length).toBeGreaterThan(50);
    expect(v1.filter((r) => !apiRoutes.includes(r))).toEqual([]);
  });

  it.each(apiRoutes)("$method $path?zzz=1: 400 validation_failed naming zzz", async (route) => {
    const err = await expectError(await call(route, "zzz=1"), 400, "validation_failed");
    expect({ message: err.message, issues: err.issues }).toEqual(unknown);
  });

  // The issue's case: answered 200 before, ignoring the parameter.
  it("POST /v1/llm/chat?zzz=1 is refused and not metered; without it, 200", async () => {
    const ws = await createWorkspace();
    const body = { model: "sandbox-chat", messages: [{ role: "user", content: "Hello" }] };
    await expectError(await ws.api("/v1/llm/chat?zzz=1", { method: "POST", json: body }), 400, "validation_failed");
    expect(await testDb().select().from(usageEvents).where(eq(usageEvents.organizationId, ws.organizationId))).toEqual([]);
    expect((await ws.api("/v1/llm/chat", { method: "POST", json: body })).status).toBe(200);
  });

  it("names every unknown parameter, known ones beside them notwithstanding", async () => {
    const err = await expectError(await owner.api("/v1/agents?limit=1&zzz=1&created_after=2025-01-01"), 400, "validation_failed");
    expect(err.message).toBe("Invalid query: (root): unknown fields: zzz, created_after");
  });

  it.each([
    "/v1/agents?limit=1&name=x",
    "/v1/calls?limit=1&direction=inbound&type=web",
    "/v1/voices?limit=1&available=true&language=en",
    "/v1/chats?limit=1&channel=widget",
    "/v1/usage?limit=1&days=7&modality=chat",
    "/v1/webhook-endpoints?limit=1&createdAfter=2025-01-01T00:00:00Z",
    "/v1/phone-numbers?limit=1",
    "/v1/widgets?limit=1",
    "/v1/channels?limit=1",
  ])("known parameters still work: %s (200)", async (path) => {
    const res = await owner.api(path);
    expect(res.status, await res.clone().text()).toBe(200);
  });

  it("the delivery log's own filters still work (200)", async () => {
    const route = apiRoutes.find((r) => r.path === "/webhooks/:id/deliveries") as RouteCase;
    const res = await call(route, "limit=1&status=succeeded");
    expect(res.status, await res.clone().text()).toBe(200);
  });

  it("other surfaces still ignore parameters they do not define: /health, the document, /docs, the widget (200)", async () => {
    for (const path of ["/health?zzz=1", `${OPENAPI_PATH}?v=2`, "/docs?zzz=1"]) {
      expect((await request(path)).status, path).toBe(200);
    }
    const widget = await createWidget(await createWorkspace());
    const res = await widgetRequest("/widget/v1/config?zzz=1", { token: widget.token });
    expect(res.status, await res.clone().text()).toBe(200);
  });
});
