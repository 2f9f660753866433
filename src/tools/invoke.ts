// One tool call, made: the model's arguments checked against the tool's schema, the URL checked
// by the webhook guard (after DNS, as before every delivery), the request signed like a webhook
// delivery (X-Service-Signature over the raw body, with the agent's tool secret), POSTed with the
// tool's timeout, redirects not followed, and the answer read as JSON (capped). Every failure is
// an outcome, never a throw: the model gets an error result and the transcript the reason.
import type { FunctionTool, ToolOutcome, ToolTurnDetail } from "../db/schema";
import type { AppConfig } from "../env";
import { newId } from "../lib/ids";
import { readCapped } from "../lib/response-body";
import { signPayload } from "../webhooks/signature";
import { checkUrlResolved, dohResolver } from "../webhooks/ssrf";
import { argumentsValidator } from "./json-schema";
import { TOOL_EVENT, TOOL_RESPONSE_CAP, type ToolChatChannel, type ToolRequestPayload } from "./request-schema";

export const TOOL_USER_AGENT = "Service-Tools/1.0";
/** What the transcript keeps of a result. */
export const TOOL_RESULT_KEPT = 4 * 1024;

/** Whom the call is for: a chat, or a live call (`transferable`: a phone call, which transfer_call can hand on). */
export type ToolSubject = { kind: "chat"; id: string; channel: ToolChatChannel } | { kind: "call"; id: string; transferable: boolean };

export interface ToolCallRequest {
  tool: FunctionTool;
  /** The model's call: its id, and its arguments as the JSON text it wrote. */
  call: { id: string; arguments: string };
  subject: ToolSubject;
  agent: { id: string; name: string; metadata: Record<string, unknown> };
  /** The agent's tool secret in clear; null when it could not be opened (nothing is sent then). */
  secret: string | null;
}

/** A tool call's outcome: what the transcript keeps, and what the model is given (`content`). */
export type ToolCallResult = ToolTurnDetail & { content: string };

type Config = Pick<AppConfig, "WEBHOOKS_ALLOW_PRIVATE_URLS" | "DNS_RESOLVER_URL">;

/** Checkers per schema, per isolate: the same tool's schema is read once (bounded). */
const validators = new Map<string, (args: unknown) => string[]>();
function validatorFor(schema: Record<string, unknown>) {
  const key = JSON.stringify(schema);
  let v = validators.get(key);
  if (!v) {
    if (validators.size >= 500) validators.clear();
    v = argumentsValidator(schema);
    validators.set(key, v);
  }
  return v;
}

function parseArguments(raw: string): { ok: true; value: unknown } | { ok: false } {
  if (raw.trim() === "") return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(raw) };
  } catch {
    return { ok: false };
  }
}

/** The signed body: what the customer's server verifies and reads (request-schema.ts describes it). */
export function toolRequestBody(req: ToolCallRequest, requestId: string, args: unknown, at: Date): string {
  const payload: ToolRequestPayload = {
    id: requestId,
    event: TOOL_EVENT,
    timestamp: at.toISOString(),
    toolCall: { id: req.call.id, name: req.tool.name, arguments: args },
    chat: req.subject.kind === "chat" ? { id: req.subject.id, channel: req.subject.channel } : null,
    call: req.subject.kind === "call" ? { id: req.subject.id } : null,
    agent: { id: req.agent.id, name: req.agent.name },
    metadata: req.agent.metadata,
  };
  return JSON.stringify(payload);
}

export async function invokeTool(config: Config, req: ToolCallRequest): Promise<ToolCallResult> {
  const started = Date.now();
  const parsed = parseArguments(req.call.arguments);
  const base = { callId: req.call.id, name: req.tool.name, arguments: parsed.ok ? parsed.value : req.call.arguments };
  const failed = (outcome: ToolOutcome, error: string, requestId: string | null, statusCode: number | null = null): ToolCallResult => {
    const content = JSON.stringify({ error: `The tool failed: ${error}` });
    return { ...base, requestId, outcome, statusCode, latencyMs: Date.now() - started, result: content, error, content };
  };

  if (!parsed.ok) return failed("invalid_arguments", "the arguments are not valid JSON", null);
  const problems = validatorFor(req.tool.parameters)(parsed.value);
  if (problems.length > 0)
    return failed("invalid_arguments", `the arguments do not match the tool's parameters (${problems.join("; ")})`, null);
  if (req.secret === null) return failed("network_error", "not sent: the agent has no tool signing secret", null);

  const verdict = await checkUrlResolved(req.tool.url, config.WEBHOOKS_ALLOW_PRIVATE_URLS, dohResolver(config.DNS_RESOLVER_URL));
  if (!verdict.ok) {
    return verdict.transient
      ? failed("network_error", `DNS lookup failed: the URL ${verdict.reason}`, null)
      : failed("url_refused", `refused: the URL ${verdict.reason}`, null);
  }

  const requestId = newId();
  const body = toolRequestBody(req, requestId, parsed.value, new Date());
  const headers = {
    "content-type": "application/json",
    "user-agent": TOOL_USER_AGENT,
    "x-service-event": TOOL_EVENT,
    "x-service-delivery-id": requestId,
    "x-service-signature": await signPayload(req.secret, body),
  };
  const timeoutMs = req.tool.timeoutSeconds * 1000;
  let res: Response;
  let answer: { text: string; over: boolean };
  try {
    const signal = AbortSignal.timeout(timeoutMs);
    res = await fetch(verdict.url.toString(), { method: "POST", headers, body, redirect: "manual", signal });
    answer = await readCapped(res, TOOL_RESPONSE_CAP);
  } catch (err) {
    const e = err as Error;
    return e.name === "TimeoutError" || e.name === "AbortError"
      ? failed("timeout", `timed out after ${req.tool.timeoutSeconds} s`, requestId)
      : failed("network_error", `network error: ${e.message}`, requestId);
  }
  if (res.status >= 300 && res.status < 400)
    return failed("http_error", `answered ${res.status} (redirects are not followed)`, requestId, res.status);
  if (res.status < 200 || res.status >= 300) return failed("http_error", `answered HTTP ${res.status}`, requestId, res.status);
  if (answer.over) return failed("invalid_json", `the answer is larger than ${TOOL_RESPONSE_CAP} bytes`, requestId, res.status);
  let value: unknown;
  try {
    value = JSON.parse(answer.text);
  } catch {
    return failed("invalid_json", "the answer is not JSON", requestId, res.status);
  }
  const content = JSON.stringify(value);
  const result = content.length > TOOL_RESULT_KEPT ? `${content.slice(0, TOOL_RESULT_KEPT)}…` : content;
  return { ...base, requestId, outcome: "ok", statusCode: res.status, latencyMs: Date.now() - started, result, content };
}
