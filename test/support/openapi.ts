// The OpenAPI document as a contract the tests hold the worker to: JSON bodies validated with Ajv
// (JSON Schema 2020-12, the dialect of OpenAPI 3.1, formats checked) against the schema the
// document gives for the operation and status, or for a webhook event's payload. Validators are
// compiled on first use and cached per (operation, status) and per event.
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { inject } from "vitest";
import type { OpenApiDoc } from "../../src/routes/public/openapi";
import { CUSTOM_PAYLOAD_WEBHOOK } from "../../src/webhooks/events";

const DOC_ID = "https://contract.test/openapi.json";
/** Keywords OpenAPI 3.1 adds to JSON Schema (its dialect's vocabulary): annotations, not checks. */
const OPENAPI_KEYWORDS = ["example", "discriminator", "xml", "externalDocs"];

type Responses = Record<string, { content?: Record<string, { schema?: unknown }> }>;
type Operations = Record<string, { responses?: Responses }>;

export interface Contract {
  /** The operation's path template for a request path, when the document has one (`/v1/agents/{id}`). */
  operationFor(method: string, path: string): string | undefined;
  /** Problems with a JSON response to `method path` (a documented operation), or [] when it holds. */
  checkResponse(method: string, template: string, status: number, body: unknown): string[];
  /** Problems with a response that is not JSON (audio, text, none): its status and media type must be listed. */
  checkMediaType(method: string, template: string, status: number, contentType: string | null): string[];
  /** Problems with a delivered webhook payload of `event`, or [] when it holds. */
  checkWebhook(event: string, payload: unknown, mode?: "all" | "custom"): string[];
}

const describe = (errors: ErrorObject[] | null | undefined) =>
  (errors ?? []).slice(0, 5).map((e) => `${e.instancePath || "(body)"} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ""}`);

export function contractOf(doc: OpenApiDoc): Contract {
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, strictTypes: false });
  addFormats(ajv);
  for (const keyword of OPENAPI_KEYWORDS) ajv.addKeyword({ keyword });
  // The component schemas as the $defs of a schema of their own: `#/components/schemas/X` refs
  // are rebased onto it.
  const rebase = (schema: unknown) =>
    JSON.parse(JSON.stringify(schema).replaceAll('"$ref":"#/components/schemas/', `"$ref":"${DOC_ID}#/$defs/`));
  ajv.addSchema({ $id: DOC_ID, $defs: rebase(doc.components?.schemas ?? {}) });
  const cache = new Map<string, ValidateFunction>();
  const compiled = (key: string, schema: unknown) => {
    let validate = cache.get(key);
    if (!validate) {
      validate = ajv.compile(rebase(schema));
      cache.set(key, validate);
    }
    return validate;
  };

  const templates = Object.keys(doc.paths ?? {})
    .map((template) => ({
      template,
      params: (template.match(/\{/g) ?? []).length,
      pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{\w+\\?\}/g, "[^/]+")}$`),
    }))
    .sort((a, b) => a.params - b.params);
  const operations = (template: string) => (doc.paths?.[template] ?? {}) as Operations;
  /** The document's response for a status (or its range, or the default), with the problem when it has none. */
  const responseOf = (method: string, template: string, status: number) => {
    const responses = operations(template)[method.toLowerCase()]?.responses ?? {};
    const response = responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default;
    const where = `${method.toUpperCase()} ${template} → ${status}`;
    const problems = response
      ? []
      : [`${where}: the document lists no ${status} for this operation (it lists ${Object.keys(responses).join(", ")})`];
    return { response, where, problems };
  };

  return {
    operationFor(method, path) {
      const m = method.toLowerCase();
      return templates.find((t) => t.pattern.test(path) && operations(t.template)[m])?.template;
    },
    checkResponse(method, template, status, body) {
      const { response, where, problems } = responseOf(method, template, status);
      if (!response) return problems;
      const schema = response.content?.["application/json"]?.schema;
      if (!schema) return [`${where}: the document gives no application/json body for this status`];
      const validate = compiled(`${method} ${template} ${status}`, schema);
      return validate(body) ? [] : describe(validate.errors).map((e) => `${where}: ${e}`);
    },
    checkMediaType(method, template, status, contentType) {
      const { response, where, problems } = responseOf(method, template, status);
      if (!response || contentType === null) return problems;
      const type = contentType.split(";")[0]?.trim().toLowerCase() ?? "";
      const listed = Object.keys(response.content ?? {});
      return listed.some((t) => t.toLowerCase() === type)
        ? []
        : [`${where}: the document gives no ${type} body for this status (it gives ${listed.join(", ") || "none"})`];
    },
    checkWebhook(event, payload, mode = "all") {
      const bodyOf = (name: string) =>
        (doc.webhooks?.[name] as { post?: { requestBody?: { content?: Record<string, { schema?: unknown }> } } } | undefined)?.post
          ?.requestBody?.content?.["application/json"]?.schema;
      if (!bodyOf(event)) return [`webhook ${event}: the document describes no such event`];
      const schema = bodyOf(mode === "custom" ? CUSTOM_PAYLOAD_WEBHOOK : event);
      if (!schema) return [`webhook ${CUSTOM_PAYLOAD_WEBHOOK}: not in the document`];
      const validate = compiled(`webhook ${event} ${mode}`, schema);
      return validate(payload) ? [] : describe(validate.errors).map((e) => `webhook ${event} (${mode}): ${e}`);
    },
  };
}

export const OPENAPI_PATH = "/v1/openapi.json";
let served: Promise<Contract> | undefined;

const IN_SCOPE = /^\/(v1|webhooks)\//;
/** Origins whose answers are held to the document: the stack's worker, and the workers and gateways tests start. */
const heldOrigins = new Set<string>();

/** Holds a worker's answers to the document (a worker of ours, or a gateway in front of one). */
export function holdToContract(baseUrl: string): void {
  heldOrigins.add(new URL(baseUrl).origin);
}

export const isHeldToContract = (baseUrl: string) => heldOrigins.has(new URL(baseUrl).origin);

/**
 * Mismatches seen since the current test began, by whatever made the request (fetch, node:http);
 * test/setup/contract.ts fails the test with them after it, even if it swallowed the rejection.
 */
export const contractMismatches: string[] = [];

/**
 * Checks an answer of a held worker: a JSON body against the document's schema for the operation
 * and status; any other answer (audio, text, no body) for a status and media type the document
 * lists. Answers out of scope (another server, a path the document does not describe) pass. A
 * mismatch is recorded and returned as the message the request should fail with; null when the
 * answer holds.
 */
export async function checkAnswer(
  method: string,
  url: URL,
  answer: { status: number; contentType: string | null; text(): Promise<string> },
): Promise<string | null> {
  if (!heldOrigins.has(url.origin) || !IN_SCOPE.test(url.pathname) || url.pathname === OPENAPI_PATH) return null;
  const doc = await servedContract();
  const template = doc.operationFor(method, url.pathname);
  if (!template) return null;
  let problems: string[];
  if (!/^application\/([\w.-]+\+)?json/i.test(answer.contentType ?? "")) {
    problems = doc.checkMediaType(method, template, answer.status, answer.contentType);
  } else {
    try {
      problems = doc.checkResponse(method, template, answer.status, JSON.parse(await answer.text()));
    } catch {
      problems = [`${method} ${url.pathname} → ${answer.status}: the body is not JSON although its Content-Type says so`];
    }
  }
  if (!problems.length) return null;
  const message = `response does not match the OpenAPI document:\n  ${problems.join("\n  ")}`;
  contractMismatches.push(message);
  return message;
}

/** The contract of the document the test worker serves (/v1/openapi.json), fetched once per test file. */
export function servedContract(): Promise<Contract> {
  served ??= fetch(inject("stack").baseUrl + OPENAPI_PATH)
    .then((res) => {
      if (res.status !== 200) throw new Error(`${OPENAPI_PATH} answered ${res.status}`);
      return res.json() as Promise<OpenApiDoc>;
    })
    .then(contractOf);
  return served;
}
