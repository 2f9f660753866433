// The OpenAPI 3.1 document (generated from the routes' own zod schemas) and a reference page
// rendered from it on the server, so it works offline and needs no third-party script.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { html, raw } from "hono/html";
import { COMPOSED_HANDLER } from "hono/utils/constants";
import type { AppEnv } from "../../context";
import { reasonPhrase } from "../../lib/errors";
import { type GuardAnswer, guardAnswersOf } from "../../lib/guard-answers";
import { publicSecurity } from "../../lib/openapi";
import { registerToolRequest } from "../../tools/request-schema";
import { registerWebhookEvents } from "../../webhooks/payload-schema";
import { type SampledOperation, samplesFor } from "./docs-samples";

export const OPENAPI_PATH = "/v1/openapi.json";

export type OpenApiDoc = ReturnType<OpenAPIHono<AppEnv>["getOpenAPI31Document"]>;

export const openApiConfig = (origin: string) => ({
  openapi: "3.1.0" as const,
  info: {
    title: "Voice and Chat Agent Platform API",
    version: "1.0.0",
    description:
      "Agents, calls, voices and the Models API under /v1, authenticated with an organization API key (`Authorization: Bearer sk-live-…`). Every error has one body: see the Error schema and /docs/errors. An unknown body field or query parameter is refused (400 validation_failed), never ignored.",
  },
  servers: [{ url: origin }],
});

const healthRoute = createRoute({
  method: "get",
  path: "/health",
  tags: ["Meta"],
  operationId: "health",
  security: publicSecurity,
  summary: "Liveness: no authentication, touches no data",
  responses: { 200: { description: "Alive.", content: { "application/json": { schema: z.object({ status: z.literal("ok") }) } } } },
});

const docsRoute = createRoute({
  method: "get",
  path: "/docs",
  tags: ["Meta"],
  operationId: "reference",
  security: publicSecurity,
  summary: "This API's reference page (HTML)",
  responses: { 200: { description: "HTML page.", content: { "text/html": { schema: z.string() } } } },
});

const METHODS = ["get", "post", "put", "patch", "delete"] as const;

type Operation = {
  requestBody?: { content?: Record<string, unknown> };
  responses?: Record<string, { description?: string; content?: unknown }>;
};
// biome-ignore lint/complexity/noBannedTypes: the router's handlers, whatever their signature
type Handler = Function & { [COMPOSED_HANDLER]?: Function };

/** A value for every path parameter when asking the router what runs on a path (ids are UUIDs). */
const SAMPLE_PARAM = "00000000-0000-4000-8000-000000000000";

/**
 * What the guards that run on `method path` (an OpenAPI path, `/v1/agents/{id}`) can answer:
 * the app's own router says which handlers a request there passes, and each registered guard
 * among them (src/lib/guard-answers.ts) says what it refuses with.
 */
export function guardAnswersFor(app: OpenAPIHono<AppEnv>, method: string, path: string): GuardAnswer[] {
  const routePath = path.replace(/\{(\w+)\}/g, ":$1");
  const matched = app.router.match(method.toUpperCase(), path.replace(/\{\w+\}/g, SAMPLE_PARAM))[0];
  const entries = matched.map(([[handler, route]]) => ({ handler: handler as Handler, route }));
  if (!entries.some(({ route }) => route.method === method.toUpperCase() && route.path === routePath)) {
    throw new Error(`the router does not route ${method.toUpperCase()} ${path} to its operation`);
  }
  return entries.flatMap(({ handler, route }) => {
    const describe = guardAnswersOf(handler[COMPOSED_HANDLER] ?? handler);
    return describe ? describe(method.toUpperCase(), route.method === "ALL" ? routePath : route.path) : [];
  });
}

/**
 * @hono/zod-openapi puts a media-type gate before the body validator of a route that declares a
 * JSON or form body: any other Content-Type (or a body without one) is a 415.
 */
function mediaTypeGate(op: Operation): GuardAnswer[] {
  const types = Object.keys(op.requestBody?.content ?? {});
  if (!types.some((t) => /json|multipart\/form-data|x-www-form-urlencoded/.test(t))) return [];
  return [{ status: 415, why: `a body sent as other than ${types.join(" or ")}` }];
}

/** Adds to every operation the statuses its guards can answer, with the one error body and why. */
function addGuardAnswers(app: OpenAPIHono<AppEnv>, doc: OpenApiDoc): void {
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = (item as Record<string, Operation | undefined>)[method];
      if (!op) continue;
      const whys = new Map<number, string[]>();
      const answers = [...guardAnswersFor(app, method, path), ...mediaTypeGate(op)];
      for (const { status, why } of answers) whys.set(status, [...(whys.get(status) ?? []), why]);
      const responses = { ...op.responses };
      for (const [status, reasons] of whys) {
        const declared = responses[status];
        const said =
          declared?.description && declared.description !== reasonPhrase(status)
            ? `${declared.description} Also: `
            : `${reasonPhrase(status)}: `;
        responses[status] = {
          ...declared,
          description: `${said}${[...new Set(reasons)].join("; ")}.`,
          content: declared?.content ?? { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
        };
      }
      op.responses = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
    }
  }
}

/**
 * The OpenAPI document: generated from the routes' own zod schemas, with every guard's refusals
 * added (addGuardAnswers). What /v1/openapi.json serves, what `npm run openapi:lint` checks and
 * what the integration suite validates responses against.
 */
export function openApiDocument(app: OpenAPIHono<AppEnv>, origin: string): OpenApiDoc {
  const doc = app.getOpenAPI31Document(openApiConfig(origin));
  addGuardAnswers(app, doc);
  return doc;
}

/** The reference page's one style sheet, inline; its hash is the page's CSP `style-src`. */
const REFERENCE_CSS = `body{font:15px/1.5 system-ui,sans-serif;max-width:960px;margin:0 auto;padding:1rem;color:#1b1b1f}
code,pre{font-family:ui-monospace,monospace}pre{background:#f4f4f6;padding:.75rem;overflow:auto;font-size:12px}
article{border-top:1px solid #ddd;padding:.5rem 0}.m{font:600 12px ui-monospace,monospace;padding:2px 6px;border-radius:4px;color:#fff;background:#555}
.get{background:#1f6feb}.post{background:#1a7f37}.patch{background:#9a6700}.delete{background:#cf222e}
table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:2px 6px;text-align:left}
.samples{display:grid;grid-template-columns:repeat(auto-fit,minmax(360px,1fr));gap:.5rem}figure{margin:0}figcaption{font-size:12px;color:#555}`;

/** The hash of REFERENCE_CSS, made once per isolate (a string: plain data). */
let referenceCssHash: string | undefined;

/**
 * The reference page loads nothing: no script, no image, no font, its links only navigate. So it
 * may run nothing and load nothing but its own inline style sheet (by hash), and be framed by no one.
 */
export async function referencePolicy(): Promise<string> {
  if (!referenceCssHash) {
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(REFERENCE_CSS)));
    referenceCssHash = btoa(String.fromCharCode(...digest));
  }
  return `default-src 'none'; style-src 'sha256-${referenceCssHash}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
}

function renderReference(doc: OpenApiDoc, origin: string) {
  const components = (doc.components ?? {}) as Parameters<typeof samplesFor>[4];
  const byTag = new Map<string, Array<{ method: string; path: string; op: Record<string, unknown> }>>();
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = (item as Record<string, unknown>)[method] as Record<string, unknown> | undefined;
      if (!op) continue;
      const tag = ((op.tags as string[] | undefined) ?? ["Other"])[0] ?? "Other";
      byTag.set(tag, [...(byTag.get(tag) ?? []), { method, path, op }]);
    }
  }
  const sections = [...byTag.entries()].map(
    ([tag, ops]) =>
      html`<section><h2 id="${tag}">${tag}</h2>${ops.map(({ method, path, op }) => {
        const body = (op.requestBody as { content?: Record<string, { schema?: unknown }> } | undefined)?.content;
        const params = (op.parameters as Array<{ name: string; in: string; required?: boolean; description?: string }> | undefined) ?? [];
        const responses = Object.entries((op.responses as Record<string, { description?: string }>) ?? {});
        const samples = samplesFor(origin, method, path, op as SampledOperation, components);
        return html`<article id="${String(op.operationId ?? "")}">
        <h3><span class="m ${method}">${method.toUpperCase()}</span> <code>${path}</code></h3>
        <p>${String(op.summary ?? "")}</p>${op.description ? html`<p>${String(op.description)}</p>` : ""}
        ${samples ? html`<div class="samples"><figure><figcaption>curl</figcaption><pre class="sample-curl">${samples.curl}</pre></figure><figure><figcaption>SDK (TypeScript)</figcaption><pre class="sample-sdk">${samples.sdk}</pre></figure></div>` : ""}
        ${params.length ? html`<table><tr><th>parameter</th><th>in</th><th>required</th><th>description</th></tr>${params.map((p) => html`<tr><td><code>${p.name}</code></td><td>${p.in}</td><td>${p.required ? "yes" : "no"}</td><td>${p.description ?? ""}</td></tr>`)}</table>` : ""}
        ${body ? Object.entries(body).map(([type, c]) => html`<details><summary>Request body (${type})</summary><pre>${JSON.stringify(c.schema, null, 2)}</pre></details>`) : ""}
        <ul>${responses.map(([code, r]) => html`<li><code>${code}</code> ${r.description ?? ""}</li>`)}</ul>
      </article>`;
      })}</section>`,
  );
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${doc.info.title}: reference</title>
<style>${raw(REFERENCE_CSS)}</style></head>
<body><h1>${doc.info.title}</h1><p>${doc.info.description ?? ""}</p>
<p>Machine-readable: <a href="${OPENAPI_PATH}">${OPENAPI_PATH}</a> (OpenAPI ${doc.openapi}). Each operation shows the curl line and the
TypeScript SDK call (<code>npm install @voice-agent-platform/sdk</code>, from this repository's <code>packages/sdk</code>) that make it.</p>
<nav>${[...byTag.keys()].map((t) => html`<a href="#${t}">${t}</a> · `)}</nav>${sections}</body></html>`;
}

/**
 * /health, the OpenAPI document and the reference page on `router`; the document is `root`'s,
 * the whole app's, whose registry every mounted surface's operations are merged into.
 */
export function registerDocs(router: OpenAPIHono<AppEnv>, root: OpenAPIHono<AppEnv> = router): void {
  router.openAPIRegistry.registerComponent("securitySchemes", "apiKey", {
    type: "http",
    scheme: "bearer",
    description: "An organization API key, `sk-live-…`, created in the dashboard.",
  });
  router.openAPIRegistry.registerComponent("securitySchemes", "session", {
    type: "apiKey",
    in: "cookie",
    name: "session",
    description: "The dashboard's session cookie (with `x-organization-id` to choose the organization).",
  });
  const documentOf = (c: { req: { url: string } }) => openApiDocument(root, new URL(c.req.url).origin);
  // On the whole app's registry itself: a mounted router's webhooks would get its mount path.
  registerWebhookEvents(root);
  registerToolRequest(root);
  router.openapi(healthRoute, (c) => c.json({ status: "ok" as const }, 200));
  router.get(OPENAPI_PATH, (c) => c.json(documentOf(c)));
  router.openapi(docsRoute, async (c) => {
    c.header("Content-Security-Policy", await referencePolicy());
    return c.html(raw(String(await renderReference(documentOf(c), new URL(c.req.url).origin))), 200);
  });
}
