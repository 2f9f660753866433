// The tools an agent's turn offers the model (docs/tools.md): which ones on this subject, and each
// as OpenAI's `tools` entry (the built-ins' descriptions and parameters); transfer_call's destination.
import { MAX_DTMF_DIGITS } from "../calls/keypad";
import type {
  AgentTool,
  EndCallTool,
  FunctionTool,
  KnowledgePlan,
  SendDtmfTool,
  TransferCallTool,
  TransferDestination,
} from "../db/schema";
import { type KnowledgeTool, knowledgeToolFunction, knowledgeToolOf, SEARCH_KNOWLEDGE } from "../knowledge/tool";
import type { ToolSubject } from "./invoke";

const END_CALL_DESCRIPTION = "End the conversation: call it once the user says goodbye or the conversation is complete.";
const TRANSFER_DESCRIPTION = "Transfer the caller to a person: call it when the caller asks for a human, or for one of the destinations.";
const SEND_DTMF_DESCRIPTION =
  "Press keys on the phone's keypad, as a person would, to choose an option in a phone menu or enter a number it asks for. The keys are pressed once what you say with the call has been said; then listen to what the line says next.";
const SEND_DTMF_PARAMETERS = {
  type: "object",
  properties: {
    digits: {
      type: "string",
      pattern: `^[0-9*#w]{1,${MAX_DTMF_DIGITS}}$`,
      description: 'The keys in order: 0-9, * and #; w waits half a second. For example "1", "1234#" or "ww2".',
    },
  },
  required: ["digits"],
};
/** What the model is told when its answer is empty after tools. */

export type Callable = FunctionTool | EndCallTool | TransferCallTool | SendDtmfTool | KnowledgeTool;

/**
 * The tools the model is offered on this subject: transfer_call and send_dtmf only on a phone call
 * (a chat or a web call has no line to hand on, nor a keypad to press).
 */
export function offeredTools(tools: readonly AgentTool[], subject: ToolSubject, knowledge?: KnowledgePlan): Map<string, Callable> {
  const out = new Map<string, Callable>();
  for (const t of tools) {
    if (t.type === "function") out.set(t.name, t);
    else if (t.type === "end_call") out.set("end_call", t);
    else if (subject.kind === "call" && subject.transferable) out.set(t.type, t);
  }
  const search = knowledgeToolOf(knowledge);
  if (search) out.set(SEARCH_KNOWLEDGE, search);
  return out;
}

/** transfer_call's arguments: the destination's name when there are several to choose from. */
function transferParameters(t: TransferCallTool): Record<string, unknown> {
  if (t.destinations.length < 2) return { type: "object", properties: {} };
  return {
    type: "object",
    properties: {
      destination: {
        type: "string",
        enum: t.destinations.map((d) => d.name),
        description: t.destinations.map((d) => `${d.name}${d.description ? `: ${d.description}` : ""}`).join("; "),
      },
    },
    required: ["destination"],
  };
}

/** The OpenAI `tools` of the offered tools. */
export function modelTools(offered: Map<string, Callable>): Array<Record<string, unknown>> {
  return [...offered.entries()].map(([name, t]) => ({
    type: "function",
    function:
      t.type === "search_knowledge"
        ? knowledgeToolFunction
        : t.type === "function"
          ? { name, description: t.description, parameters: t.parameters }
          : t.type === "transfer_call"
            ? { name, description: t.description ?? TRANSFER_DESCRIPTION, parameters: transferParameters(t) }
            : t.type === "send_dtmf"
              ? { name, description: t.description ?? SEND_DTMF_DESCRIPTION, parameters: SEND_DTMF_PARAMETERS }
              : { name, description: t.description ?? END_CALL_DESCRIPTION, parameters: { type: "object", properties: {} } },
  }));
}

/** The destination a transfer_call's arguments name (the only one when there is one), or null. */
export function transferDestination(t: TransferCallTool, args: unknown): TransferDestination | null {
  if (t.destinations.length === 1) return t.destinations[0] ?? null;
  const wanted = (args as { destination?: unknown } | null)?.destination;
  return t.destinations.find((d) => d.name === wanted) ?? null;
}
