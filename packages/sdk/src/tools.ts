// Serving an agent's tools (docs/tools.md): the platform POSTs each tool call to the tool's URL,
// signed with the agent's tool secret exactly like a webhook delivery. constructToolRequest
// verifies it with the webhooks' own code (signature.ts) and returns the request, typed from the
// OpenAPI document's `tool.call` (src/tools/request-schema.ts on the server); toolResponse builds
// the answer the platform reads: 2xx, a JSON body of at most 16 KB, given to the model as is.
import { WebhookVerificationError } from "./errors.js";
import type { webhooks as WebhookOperations } from "./generated/openapi.js";
import { checkDeliveryId, type RawBody, type SignatureInput, type VerifyOptions, verifySigned } from "./signature.js";

export { WebhookVerificationError } from "./errors.js";
export type { RawBody, SignatureInput } from "./signature.js";

export const TOOL_EVENT = "tool.call";
/** The most of an answer the platform reads; a longer one is a failed tool call. */
export const TOOL_RESPONSE_LIMIT = 16 * 1024;

type Described = WebhookOperations["tool.call"]["post"]["requestBody"]["content"]["application/json"];

/**
 * One call of an agent's tool, as the platform sends it: `id` (your idempotency key, also
 * X-Service-Delivery-Id), `toolCall` (`name`, and `arguments` that passed the tool's
 * `parameters` schema), the `chat` or the `call` it happens in, the `agent` and its `metadata`.
 * `Args` types the arguments (the platform checked them against the tool's schema).
 */
export type ToolRequest<Args = Record<string, unknown>> = Omit<Described, "toolCall"> & {
  toolCall: Omit<Described["toolCall"], "arguments"> & { arguments: Args };
};
export type ToolRequestChat = NonNullable<Described["chat"]>;
export type ToolRequestCall = NonNullable<Described["call"]>;

export type ConstructToolRequestOptions = VerifyOptions;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Verifies a tool request's signature with the agent's `toolSecret` and returns the request.
 * `signature` is the X-Service-Signature value, or the request's headers (then
 * X-Service-Delivery-Id, when present, must be the signed `id`). Throws WebhookVerificationError
 * when the header is missing or malformed, the timestamp is outside the tolerance (a replay of a
 * captured request), no signature matches (a forged or changed body, a wrong or rotated secret),
 * or the body is not a tool request. A request replayed within the tolerance passes: refuse an
 * `id` you have served already.
 */
export async function constructToolRequest<Args = Record<string, unknown>>(
  rawBody: RawBody,
  signature: SignatureInput,
  toolSecret: string,
  options: ConstructToolRequestOptions = {},
): Promise<ToolRequest<Args>> {
  const verified = await verifySigned(rawBody, signature, toolSecret, options, "The agent's tool secret (toolSecret)");
  const request = verified.body;
  if (isObject(request) && typeof request.event === "string" && request.event !== TOOL_EVENT)
    throw new WebhookVerificationError(
      `The signed body is a webhook event (${request.event}), not a tool request: verify it with constructEvent and the endpoint's secret.`,
    );
  const call = isObject(request) ? request.toolCall : undefined;
  if (
    !isObject(request) ||
    request.event !== TOOL_EVENT ||
    typeof request.id !== "string" ||
    !isObject(call) ||
    typeof call.name !== "string" ||
    !("arguments" in call) ||
    !isObject(request.agent)
  )
    throw new WebhookVerificationError("The signed body is not a tool request.");
  checkDeliveryId(verified, request.id);
  return request as unknown as ToolRequest<Args>;
}

/**
 * The body of a tool's answer: `result` as JSON, which the model reads as is (an object, a list,
 * a string…). Throws a RangeError when it is larger than the platform reads (16 KB), and a
 * TypeError when it is not JSON (undefined, a function), rather than let the call fail remotely.
 */
export function toolResponseBody(result: unknown): string {
  const body = JSON.stringify(result);
  if (body === undefined) throw new TypeError("A tool's result must be a JSON value (undefined, a function or a symbol is not).");
  const size = new TextEncoder().encode(body).length;
  if (size > TOOL_RESPONSE_LIMIT)
    throw new RangeError(`The tool's result is ${size} bytes of JSON; the platform reads at most ${TOOL_RESPONSE_LIMIT}: answer less.`);
  return body;
}

/**
 * A fetch Response that answers a tool request: `result` as JSON (toolResponseBody), status 200
 * unless `init` says otherwise. A non-2xx status makes the call fail on the platform's side: the
 * agent says the tool's failure message; to let the model explain instead, answer 2xx with what
 * went wrong (`{ error: "no such order" }`).
 */
export function toolResponse(result: unknown, init: ResponseInit = {}): Response {
  const headers = new Headers(init.headers);
  if (!headers.has("content-type")) headers.set("content-type", "application/json");
  return new Response(toolResponseBody(result), { ...init, headers });
}

/** The same functions, as `client.tools`. */
export const tools = { constructRequest: constructToolRequest, response: toolResponse, responseBody: toolResponseBody };
