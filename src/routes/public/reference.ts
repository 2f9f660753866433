// GET /docs: the API's reference page, rendered on the server from the OpenAPI document (the
// whole app's, `root`), so it works offline and needs no third-party script.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { html, raw } from "hono/html";
import type { AppEnv } from "../../context";
import { publicSecurity } from "../../lib/openapi";
import { type SampledOperation, samplesFor } from "./docs-samples";
import { METHODS, OPENAPI_PATH, type OpenApiDoc, openApiDocument } from "./openapi";

export const docsRoute = createRoute({
  method: "get",
  path: "/docs",
  tags: ["Meta"],
  operationId: "reference",
  security: publicSecurity,
  summary: "This API's reference page (HTML)",
  responses: { 200: { description: "HTML page.", content: { "text/html": { schema: z.string() } } } },
});

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

/** The sections in the order people use them: agents and calls first; a tag not named here comes after, as met. */
const TAG_ORDER = [
  "Agents",
  "Calls",
  "Voices",
  "Chats",
  "Widgets",
  "Webhooks",
  "Models",
  "Identity",
  "Widget (public)",
  "Telephony",
  "Dashboard",
  "Meta",
];
const tagRank = (tag: string) => {
  const i = TAG_ORDER.indexOf(tag);
  return i === -1 ? TAG_ORDER.length : i;
};

/**
 * The documents' Markdown, inline only: `code`, **strong** and [links](https://…) (http(s) and
 * same-site paths), on text escaped first, so nothing else of it can become markup.
 */
export function inlineMarkdown(text: string) {
  const escaped = text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
  return raw(
    escaped
      .replace(/`([^`]+)`/g, "<code>$1</code>")
      .replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>")
      .replace(/\[([^\]]+)\]\(((?:https?:\/\/|\/)[^)\s]*)\)/g, '<a href="$2">$1</a>'),
  );
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
  const ordered = [...byTag.entries()].sort(([a], [b]) => tagRank(a) - tagRank(b));
  const sections = ordered.map(
    ([tag, ops]) =>
      html`<section><h2 id="${tag}">${tag}</h2>${ops.map(({ method, path, op }) => {
        const body = (op.requestBody as { content?: Record<string, { schema?: unknown }> } | undefined)?.content;
        const params = (op.parameters as Array<{ name: string; in: string; required?: boolean; description?: string }> | undefined) ?? [];
        const responses = Object.entries((op.responses as Record<string, { description?: string }>) ?? {});
        const samples = samplesFor(origin, method, path, op as SampledOperation, components);
        return html`<article id="${String(op.operationId ?? "")}">
        <h3><span class="m ${method}">${method.toUpperCase()}</span> <code>${path}</code></h3>
        <p>${inlineMarkdown(String(op.summary ?? ""))}</p>${op.description ? html`<p>${inlineMarkdown(String(op.description))}</p>` : ""}
        ${samples ? html`<div class="samples"><figure><figcaption>curl</figcaption><pre class="sample-curl">${samples.curl}</pre></figure><figure><figcaption>SDK (TypeScript)</figcaption><pre class="sample-sdk">${samples.sdk}</pre></figure></div>` : ""}
        ${params.length ? html`<table><tr><th>parameter</th><th>in</th><th>required</th><th>description</th></tr>${params.map((p) => html`<tr><td><code>${p.name}</code></td><td>${p.in}</td><td>${p.required ? "yes" : "no"}</td><td>${inlineMarkdown(p.description ?? "")}</td></tr>`)}</table>` : ""}
        ${body ? Object.entries(body).map(([type, c]) => html`<details><summary>Request body (${type})</summary><pre>${JSON.stringify(c.schema, null, 2)}</pre></details>`) : ""}
        <ul>${responses.map(([code, r]) => html`<li><code>${code}</code> ${inlineMarkdown(r.description ?? "")}</li>`)}</ul>
      </article>`;
      })}</section>`,
  );
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${doc.info.title}: reference</title>
<style>${raw(REFERENCE_CSS)}</style></head>
<body><h1>${doc.info.title}</h1><p>${inlineMarkdown(doc.info.description ?? "")}</p>
<p>Machine-readable: <a href="${OPENAPI_PATH}">${OPENAPI_PATH}</a> (OpenAPI ${doc.openapi}). Each operation shows the curl line and the
TypeScript SDK call that make it. The SDK is not on the npm registry: it is this repository's <code>packages/sdk</code>
(<code>npm run sdk:build</code>, then <code>npm install /path/to/packages/sdk</code> in your project).</p>
<nav>${ordered.map(([t]) => html`<a href="#${t}">${t}</a> · `)}</nav>${sections}</body></html>`;
}

export const registerReference = (router: OpenAPIHono<AppEnv>, root: OpenAPIHono<AppEnv>) =>
  router.openapi(docsRoute, async (c) => {
    const origin = new URL(c.req.url).origin;
    c.header("Content-Security-Policy", await referencePolicy());
    return c.html(raw(String(await renderReference(openApiDocument(root, origin), origin))), 200);
  });
