// The OpenAPI 3.1 document, generated from the routes' own zod schemas with every guard's refusals
// added, and GET /v1/openapi.json, which serves it (not itself in the document). The reference
// page rendered from it is reference.ts.
import type { OpenAPIHono } from "@hono/zod-openapi";
import { COMPOSED_HANDLER } from "hono/utils/constants";
import type { AppEnv } from "../../context";
import { reasonPhrase } from "../../lib/errors";
import { type GuardAnswer, guardAnswersOf } from "../../lib/guard-answers";
import { registerToolRequest } from "../../tools/request-schema";
import { registerWebhookEvents } from "../../webhooks/payload-schema";

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

/** The HTTP methods of the document's operations. */
export const METHODS = ["get", "post", "put", "patch", "delete"] as const;

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

/**
 * What the document declares besides the operations: the security schemes (on `router`), and the
 * webhook events and the tool request, on `root`, the whole app's registry itself (a mounted
 * router's webhooks would get its mount path). Registered before the public operations.
 */
export function registerDocumentComponents(router: OpenAPIHono<AppEnv>, root: OpenAPIHono<AppEnv>): void {
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
  registerWebhookEvents(root);
  registerToolRequest(root);
}

/** GET /v1/openapi.json: `root`'s document, the whole app's, whose registry every mounted surface's operations are merged into. */
export const registerOpenApiDocument = (router: OpenAPIHono<AppEnv>, root: OpenAPIHono<AppEnv>) =>
  router.get(OPENAPI_PATH, (c) => c.json(openApiDocument(root, new URL(c.req.url).origin)));
