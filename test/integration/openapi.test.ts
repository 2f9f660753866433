// The OpenAPI document lists every status the guards answer (src/lib/guard-answers.ts, added
// to the document in src/routes/public/openapi.ts). Every operation of the served document is driven over
// HTTP with a body over its route's limit (whatever the method: the input guard counts the bodies
// of GET and DELETE too) and, for POST/PUT/PATCH, with a body of a type no route takes; each answer
// must be a status the document lists for that operation, with the body the document gives for it.
// Both ways: every operation answers the 413 it documents, and every operation that documents a
// 415 answers one (with the widget's token and origin, which its gate checks before anything).
import { createHash, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bodyLimitFor } from "../../src/middleware/guards";
import type { OpenApiDoc } from "../../src/routes/public/openapi";
import { hasBrowser, launchBrowser, takeCspViolations, watchCsp } from "../support/browser";
import { baseUrl, createWorkspace, json, request } from "../support/harness";
import { send } from "../support/http";
import { type Contract, OPENAPI_PATH, servedContract } from "../support/openapi";
import { createWidget, SITE } from "../support/widgets";

const METHODS = ["get", "post", "put", "patch", "delete"] as const;
const CONTENT_METHODS = new Set(["post", "put", "patch"]);

let doc: OpenApiDoc;
let contract: Contract;
let widgetToken: string;

beforeAll(async () => {
  doc = await json<OpenApiDoc>(await request(OPENAPI_PATH));
  contract = await servedContract();
  widgetToken = (await createWidget(await createWorkspace())).token;
});

const operations = () =>
  Object.entries(doc.paths ?? {}).flatMap(([template, item]) =>
    METHODS.filter((m) => (item as Record<string, unknown>)[m]).map((method) => ({
      method,
      template,
      listed: Object.keys(((item as Record<string, { responses?: object }>)[method]?.responses ?? {}) as object),
    })),
  );

/** The request path: parameters filled with fresh UUIDs, and the widget's token where its gate wants one. */
function target(template: string): { path: string; headers: Record<string, string> } {
  const path = template.replace(/\{\w+\}/g, () => randomUUID());
  return template.startsWith("/widget/")
    ? { path: `${path}?token=${encodeURIComponent(widgetToken)}`, headers: { origin: SITE } }
    : { path, headers: {} };
}

/** The answer's status is listed for the operation, and its JSON body is what the document gives for it. */
function documented(method: string, template: string, answer: { status: number; text: string }, listed: string[]) {
  const where = `${method.toUpperCase()} ${template}`;
  expect(listed, `${where} answered ${answer.status}: ${answer.text.slice(0, 200)}`).toContain(String(answer.status));
  expect(contract.checkResponse(method, template, answer.status, JSON.parse(answer.text)), where).toEqual([]);
}

describe("the document lists what the guards answer, on every operation", () => {
  it("covers the served document", () => {
    expect(operations().length).toBeGreaterThan(80);
  });

  it("a body over the route's limit, with the operation's own method: 413, documented, with the error body", async () => {
    for (const { method, template, listed } of operations()) {
      const limit = bodyLimitFor(template.replace(/\{(\w+)\}/g, ":$1"));
      const { path, headers } = target(template);
      const answer = await send(method.toUpperCase(), path, {
        headers: { ...headers, "content-type": "application/json" },
        body: new Uint8Array(limit + 1).fill(0x20),
      });
      expect(answer.status, `${method.toUpperCase()} ${template}`).toBe(413);
      documented(method, template, answer, listed);
    }
  }, 120_000);

  it("a body of a type no route takes: a documented status, and a 415 wherever the document lists one", async () => {
    const ops = operations().filter((o) => CONTENT_METHODS.has(o.method));
    expect(ops.length).toBeGreaterThan(40);
    for (const { method, template, listed } of ops) {
      const { path, headers } = target(template);
      const answer = await send(method.toUpperCase(), path, {
        headers: { ...headers, "content-type": "application/xml" },
        body: new TextEncoder().encode("<probe/>"),
      });
      documented(method, template, answer, listed);
      // A provider's delivery checks its content type only after the channel's secret (docs/messaging.md): here no
      // channel (404); messaging/deliveries.test.ts proves its 415.
      const afterSecret = /^\/channels\/(telegram|whatsapp)\//.test(template);
      if (listed.includes("415") && !afterSecret)
        expect(answer.status, `${method.toUpperCase()} ${template}: ${answer.text.slice(0, 200)}`).toBe(415);
    }
  }, 120_000);
});

describe("the reference page", () => {
  it("shows each operation the SDK calls as curl and as the SDK call, escaped, with the worker's own origin", async () => {
    const res = await request("/docs");
    const page = await res.text();
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    const origin = new URL(res.url).origin;
    expect(page).toContain(`curl -X POST &quot;${origin}/v1/agents&quot;`);
    expect(page).toContain("client.agents.create(");
    expect(page).toContain("for await (const item of client.calls.list())");
    expect(page.match(/<pre class="sample-sdk">/g)?.length).toBeGreaterThan(50);
    expect(page).not.toMatch(/<pre class="sample-(curl|sdk)">[^<]*"/); // quotes in the samples are escaped
  });

  it("starts with agents and calls, renders the descriptions' Markdown, and does not send users to an unpublished package", async () => {
    const page = await (await request("/docs")).text();
    const sections = [...page.matchAll(/<section><h2 id="([^"]+)">/g)].map((m) => m[1]);
    expect(sections.slice(0, 2)).toEqual(["Agents", "Calls"]);
    expect(sections.indexOf("Meta")).toBeGreaterThan(sections.indexOf("Webhooks"));
    // Outside the samples and schemas (<pre>), no literal backtick is left: `code` became <code>.
    const prose = page.replace(/<pre[\s\S]*?<\/pre>/g, "");
    expect(prose).not.toContain("`");
    expect(prose).toContain("Answers the call (type <code>web</code>)");
    expect(page).not.toContain("npm install @voice-agent-platform/sdk");
    expect(page).toContain("The SDK is not on the npm registry");
  });
});

describe("the reference page's Content-Security-Policy", () => {
  /** The policy's directives by name. */
  const directives = (csp: string) =>
    new Map(
      csp
        .split(";")
        .map((d) => d.trim().split(/\s+/))
        .filter((d) => d[0])
        .map(([name, ...values]) => [name as string, values]),
    );

  it("lets through its one inline style sheet (by hash) and nothing else: no script, no framing", async () => {
    const res = await request("/docs");
    const page = await res.text();
    const d = directives(res.headers.get("content-security-policy") ?? "");
    expect(d.get("default-src")).toEqual(["'none'"]);
    expect(d.get("base-uri")).toEqual(["'none'"]);
    expect(d.get("form-action")).toEqual(["'none'"]);
    expect(d.get("frame-ancestors")).toEqual(["'none'"]);
    expect(d.has("script-src")).toBe(false); // default-src 'none': no script runs
    const styles = [...page.matchAll(/<style>([^<]*)<\/style>/g)].map((m) => m[1] ?? "");
    expect(styles).toHaveLength(1);
    expect(d.get("style-src")).toEqual([
      `'sha256-${createHash("sha256")
        .update(styles[0] as string)
        .digest("base64")}'`,
    ]);
    // Nothing the page would need that the policy refuses.
    expect(page).not.toMatch(/<(script|img|link|iframe|object|embed|form)\b|\sstyle="|\son[a-z]+="/i);
  });

  describe.runIf(hasBrowser)("in Chromium", () => {
    let browser: Awaited<ReturnType<typeof launchBrowser>>;
    beforeAll(async () => {
      browser = await launchBrowser();
    });
    afterAll(async () => {
      await browser?.close();
    });

    it("renders with its styles applied and no policy violation", async () => {
      const page = watchCsp(await browser.newPage());
      const res = await page.goto(`${baseUrl()}/docs`);
      expect(res?.status()).toBe(200);
      const styled = await page.evaluate<{ font: string; badge: string }>(
        `({ font: getComputedStyle(document.body).fontFamily, badge: getComputedStyle(document.querySelector(".m.post")).backgroundColor })`,
      );
      expect(styled.font).toContain("system-ui");
      expect(styled.badge).toBe("rgb(26, 127, 55)"); // .post{background:#1a7f37}
      expect(takeCspViolations()).toEqual([]);
      await page.close();
    });
  });
});
