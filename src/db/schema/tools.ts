// What an agent's tools and a chat's tool turns look like in jsonb (docs/tools.md). The API shapes
// are in src/tools/schema.ts; these are the stored ones, read by the tool runtime.

/** A tool of the customer's: the model calls it, the platform POSTs the call to `url`, signed. */
export interface FunctionTool {
  type: "function";
  name: string;
  description: string;
  /** A JSON Schema of an object, checked against the draft-07 meta-schema when saved. */
  parameters: Record<string, unknown>;
  url: string;
  timeoutSeconds: number;
  messages: { requestStart?: string; requestFailed?: string };
}

/** Built-in: the model decides the conversation is over (a chat ends `agent-ended`; a call hangs up). */
export interface EndCallTool {
  type: "end_call";
  description?: string;
  /** Said as the conversation ends when the model says nothing itself. */
  messages: { requestStart?: string };
}

export interface TransferDestination {
  number: string;
  name?: string;
  description?: string;
  /** Said before the transfer. */
  message?: string;
}

/** Built-in, stored and validated now; carried out by calls (not offered to the model in chats). */
export interface TransferCallTool {
  type: "transfer_call";
  description?: string;
  destinations: TransferDestination[];
}

/** Built-in, offered on phone calls only: the model presses keys on the phone's keypad (an IVR's menu). */
export interface SendDtmfTool {
  type: "send_dtmf";
  description?: string;
}

export type AgentTool = FunctionTool | EndCallTool | TransferCallTool | SendDtmfTool;

export const TOOL_OUTCOMES = [
  "ok",
  "timeout",
  "http_error",
  "invalid_json",
  "invalid_arguments",
  "url_refused",
  "network_error",
  "unknown_tool",
] as const;
export type ToolOutcome = (typeof TOOL_OUTCOMES)[number];

/** One tool call as the transcript keeps it (a `tool` turn). */
export interface ToolTurnDetail {
  /** The model's id of the call (`call_…`). */
  callId: string;
  /** Our id of the request: `X-Service-Delivery-Id` and `id` in the signed body, the receiver's idempotency key. */
  requestId: string | null;
  name: string;
  /** The arguments as the model wrote them (parsed when they were JSON). */
  arguments: unknown;
  outcome: ToolOutcome;
  statusCode: number | null;
  /** From the model's answer to the tool's (or the failure). */
  latencyMs: number;
  /** What the model was given back (capped). */
  result: string;
  /** Why it failed, for people (never a secret). */
  error?: string;
}
