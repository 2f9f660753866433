// POST /v1/chat/completions of the provider sandbox: OpenAI's request and response shapes,
// with replies computed from the input by fixed rules (see docs/sandbox.md). Not a model:
// the same request always gets the same choices and usage; only `id` and `created` vary.
import { createHash, randomBytes } from "node:crypto";
import { CALLER_PROMPT_START, callerReply, JUDGE_PROMPT_START, judgeReply, PROSE_ANSWER } from "./agent-tests";
import { ApiError, invalid } from "./errors";

// ---------------------------------------------------------------------------------------------
// Tokens: a run of letters, marks, digits and underscores is one token; every other character
// that is not white space is one token on its own. "Hello, world!" = 4 tokens.
const TOKEN_RE = /[\p{L}\p{M}\p{N}_]+|[^\s\p{L}\p{M}\p{N}_]/gu;

export function countTokens(text: string): number {
  return text.match(TOKEN_RE)?.length ?? 0;
}

/** The text up to and including its first `max` tokens (white space between them kept). */
export function truncateTokens(text: string, max: number): string {
  if (max <= 0) return "";
  let n = 0;
  for (const m of text.matchAll(TOKEN_RE)) {
    n++;
    if (n === max) return text.slice(0, (m.index ?? 0) + m[0].length);
  }
  return text;
}

/** The text cut into pieces that each start with one token (and its leading space): stream deltas. */
function streamPieces(text: string): string[] {
  const starts = [...text.matchAll(TOKEN_RE)].map((m) => m.index ?? 0);
  if (starts.length === 0) return text ? [text] : [];
  const pieces: string[] = [];
  for (let i = 0; i < starts.length; i++) {
    const from = i === 0 ? 0 : (starts[i] as number);
    const to = i + 1 < starts.length ? (starts[i + 1] as number) : text.length;
    // leading white space belongs to the token after it
    pieces.push(text.slice(from, to));
  }
  return pieces;
}

// ---------------------------------------------------------------------------------------------
// Request

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };
type Schema = JsonObject;

interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

interface Message {
  role: "system" | "developer" | "user" | "assistant" | "tool" | "function";
  text: string;
  name?: string;
  toolCalls: ToolCall[];
  toolCallId?: string;
}

interface Tool {
  name: string;
  parameters?: Schema;
}

export interface ChatRequest {
  model: string;
  messages: Message[];
  tools: Tool[];
  rawTools?: Json;
  toolChoice: "none" | "auto" | "required" | { name: string };
  responseFormat: { type: "text" } | { type: "json_object" } | { type: "json_schema"; schema: Schema };
  maxTokens?: number;
  n: number;
  stream: boolean;
  includeUsage: boolean;
}

const ROLES = ["system", "developer", "user", "assistant", "tool", "function"] as const;
const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/** Text of a message's `content`: a string, or the `text` parts of an array of content parts. */
function contentText(content: unknown, param: string): string {
  if (content === null || content === undefined) return "";
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part, i) => {
        if (!isObject(part) || typeof part.type !== "string") throw invalid(`Invalid content part at ${param}[${i}].`, `${param}[${i}]`);
        if (part.type === "text" || part.type === "input_text" || part.type === "refusal") {
          const t = part.type === "refusal" ? part.refusal : part.text;
          if (typeof t !== "string") throw invalid(`Missing text in ${param}[${i}].`, `${param}[${i}].text`);
          return t;
        }
        return ""; // images, audio, files: accepted, not read
      })
      .filter((t) => t !== "")
      .join("\n");
  }
  throw invalid(`Invalid type for '${param}': expected a string or an array of content parts.`, param, "invalid_type");
}

function optionalInt(body: JsonObject, key: string, min: number, max: number): number | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "number" || !Number.isInteger(v)) throw invalid(`Invalid type for '${key}': expected an integer.`, key, "invalid_type");
  if (v < min || v > max) throw invalid(`Invalid '${key}': ${v}. Expected a value between ${min} and ${max}.`, key);
  return v;
}

export function parseChatRequest(body: unknown): ChatRequest {
  if (!isObject(body)) throw invalid("The request body must be a JSON object.", null, "invalid_type");
  if (typeof body.model !== "string" || body.model === "")
    throw invalid("You must provide a model parameter.", "model", "missing_required_parameter");
  const model = body.model;

  if (!Array.isArray(body.messages)) throw invalid("Missing required parameter: 'messages'.", "messages", "missing_required_parameter");
  if (body.messages.length === 0)
    throw invalid("Invalid 'messages': empty array. Expected an array with minimum length 1.", "messages", "empty_array");
  const messages: Message[] = body.messages.map((raw, i) => {
    const param = `messages[${i}]`;
    if (!isObject(raw)) throw invalid(`Invalid type for '${param}': expected an object.`, param, "invalid_type");
    const role = raw.role;
    if (typeof role !== "string" || !(ROLES as readonly string[]).includes(role))
      throw invalid(`Invalid value: '${String(role)}'. Supported values are: ${ROLES.map((r) => `'${r}'`).join(", ")}.`, `${param}.role`);
    const toolCalls: ToolCall[] = [];
    if (raw.tool_calls !== undefined && raw.tool_calls !== null) {
      if (role !== "assistant" || !Array.isArray(raw.tool_calls))
        throw invalid(`Invalid '${param}.tool_calls': only assistant messages carry an array of tool calls.`, `${param}.tool_calls`);
      raw.tool_calls.forEach((c, j) => {
        const fn = isObject(c) ? c.function : undefined;
        if (!isObject(c) || typeof c.id !== "string" || !isObject(fn) || typeof fn.name !== "string" || typeof fn.arguments !== "string")
          throw invalid(`Invalid tool call at ${param}.tool_calls[${j}].`, `${param}.tool_calls[${j}]`);
        toolCalls.push({ id: c.id, type: "function", function: { name: fn.name, arguments: fn.arguments } });
      });
    }
    if (role === "tool" && typeof raw.tool_call_id !== "string")
      throw invalid(
        `Missing parameter 'tool_call_id': messages with role 'tool' must have a 'tool_call_id'.`,
        `${param}.tool_call_id`,
        "missing_required_parameter",
      );
    return {
      role: role as Message["role"],
      text: contentText(raw.content, `${param}.content`),
      ...(typeof raw.name === "string" ? { name: raw.name } : {}),
      toolCalls,
      ...(typeof raw.tool_call_id === "string" ? { toolCallId: raw.tool_call_id } : {}),
    };
  });

  if (body.temperature !== undefined && body.temperature !== null) {
    const t = body.temperature;
    if (typeof t !== "number" || t < 0 || t > 2) throw invalid(`Invalid 'temperature': expected a number between 0 and 2.`, "temperature");
  }
  if (
    body.max_tokens !== undefined &&
    body.max_tokens !== null &&
    body.max_completion_tokens !== undefined &&
    body.max_completion_tokens !== null
  )
    throw invalid("Set either 'max_tokens' or 'max_completion_tokens', not both.", "max_tokens");
  const maxTokens = optionalInt(body, "max_tokens", 1, 1_000_000) ?? optionalInt(body, "max_completion_tokens", 1, 1_000_000);
  const n = optionalInt(body, "n", 1, 16) ?? 1;

  const tools: Tool[] = [];
  if (body.tools !== undefined && body.tools !== null) {
    if (!Array.isArray(body.tools)) throw invalid("Invalid type for 'tools': expected an array.", "tools", "invalid_type");
    body.tools.forEach((t, i) => {
      const fn = isObject(t) ? t.function : undefined;
      if (!isObject(t) || t.type !== "function" || !isObject(fn))
        throw invalid(`Invalid 'tools[${i}]': the sandbox supports tools of type 'function'.`, `tools[${i}]`);
      if (typeof fn.name !== "string" || !/^[a-zA-Z0-9_-]{1,64}$/.test(fn.name))
        throw invalid(`Invalid 'tools[${i}].function.name': expected 1 to 64 letters, digits, '_' or '-'.`, `tools[${i}].function.name`);
      if (fn.parameters !== undefined && !isObject(fn.parameters))
        throw invalid(`Invalid 'tools[${i}].function.parameters': expected a JSON Schema object.`, `tools[${i}].function.parameters`);
      tools.push({ name: fn.name, ...(isObject(fn.parameters) ? { parameters: fn.parameters } : {}) });
    });
  }

  let toolChoice: ChatRequest["toolChoice"] = tools.length > 0 ? "auto" : "none";
  const tc = body.tool_choice;
  if (tc !== undefined && tc !== null) {
    if (tc === "none" || tc === "auto" || tc === "required") toolChoice = tc;
    else if (isObject(tc) && tc.type === "function" && isObject(tc.function) && typeof tc.function.name === "string")
      toolChoice = { name: tc.function.name };
    else
      throw invalid("Invalid 'tool_choice': expected 'none', 'auto', 'required' or {type: 'function', function: {name}}.", "tool_choice");
    if (toolChoice !== "none" && tools.length === 0)
      throw invalid("Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.", "tool_choice");
    if (typeof toolChoice === "object" && !tools.some((t) => t.name === (toolChoice as { name: string }).name))
      throw invalid(`Invalid 'tool_choice': no tool named '${toolChoice.name}' in 'tools'.`, "tool_choice");
  }

  let responseFormat: ChatRequest["responseFormat"] = { type: "text" };
  const rf = body.response_format;
  if (rf !== undefined && rf !== null) {
    if (!isObject(rf)) throw invalid("Invalid type for 'response_format': expected an object.", "response_format", "invalid_type");
    if (rf.type === "text") responseFormat = { type: "text" };
    else if (rf.type === "json_object") {
      // OpenAI's own rule: JSON mode needs the word "json" somewhere in the messages.
      if (!messages.some((m) => /json/i.test(m.text)))
        throw invalid("'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.", "messages");
      responseFormat = { type: "json_object" };
    } else if (rf.type === "json_schema") {
      const js = rf.json_schema;
      if (!isObject(js) || typeof js.name !== "string")
        throw invalid(
          "Missing required parameter: 'response_format.json_schema.name'.",
          "response_format.json_schema.name",
          "missing_required_parameter",
        );
      if (js.schema !== undefined && !isObject(js.schema))
        throw invalid("Invalid 'response_format.json_schema.schema': expected an object.", "response_format.json_schema.schema");
      responseFormat = { type: "json_schema", schema: isObject(js.schema) ? js.schema : { type: "object" } };
    } else
      throw invalid(
        `Invalid value: '${String(rf.type)}'. Supported values are: 'text', 'json_object' and 'json_schema'.`,
        "response_format.type",
      );
  }

  if (body.stream !== undefined && body.stream !== null && typeof body.stream !== "boolean")
    throw invalid("Invalid type for 'stream': expected a boolean.", "stream", "invalid_type");
  const stream = body.stream === true;
  const so = body.stream_options;
  if (so !== undefined && so !== null && !stream)
    throw invalid("The 'stream_options' parameter is only allowed when 'stream' is enabled.", "stream_options");
  const includeUsage = stream && isObject(so) && so.include_usage === true;

  return {
    model,
    messages,
    tools,
    ...(body.tools !== undefined ? { rawTools: body.tools } : {}),
    toolChoice,
    responseFormat,
    ...(maxTokens !== undefined ? { maxTokens } : {}),
    n,
    stream,
    includeUsage,
  };
}

// ---------------------------------------------------------------------------------------------
// Values from a JSON Schema, derived from the input (used for json_schema replies and tool arguments)

interface Derive {
  /** The reply sentence: every free-form string. */
  sentence: string;
  /** Words in the last user message: every number, clamped to the schema's bounds. */
  words: number;
  /** Whether the last user message had any text: every boolean. */
  nonEmpty: boolean;
}

const STRING_FORMATS: Record<string, string> = {
  "date-time": "1970-01-01T00:00:00Z",
  date: "1970-01-01",
  time: "00:00:00",
  email: "sandbox@example.com",
  uri: "https://example.com/",
  url: "https://example.com/",
  uuid: "00000000-0000-4000-8000-000000000000",
  hostname: "example.com",
  ipv4: "192.0.2.1",
  ipv6: "2001:db8::1",
};

function resolveRef(root: Schema, ref: string): Schema | undefined {
  if (ref === "#") return root;
  if (!ref.startsWith("#/")) return undefined;
  let node: Json | undefined = root;
  for (const part of ref
    .slice(2)
    .split("/")
    .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"))) {
    node = isObject(node) ? node[part] : undefined;
  }
  return isObject(node) ? node : undefined;
}

export function valueFor(schema: Schema, d: Derive, root: Schema = schema, depth = 0): Json {
  if (depth > 12) return null;
  if (typeof schema.$ref === "string") {
    const target = resolveRef(root, schema.$ref);
    return target ? valueFor(target, d, root, depth + 1) : {};
  }
  if ("const" in schema) return schema.const as Json;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0] as Json;
  for (const key of ["anyOf", "oneOf", "allOf"] as const) {
    const branches = schema[key];
    if (Array.isArray(branches) && branches.length > 0) {
      const pick = branches.find((b) => isObject(b) && b.type !== "null") ?? branches[0];
      if (isObject(pick)) return valueFor(pick, d, root, depth + 1);
    }
  }
  let type = schema.type;
  if (Array.isArray(type)) type = type.find((t) => t !== "null") ?? "null";
  if (type === undefined) type = isObject(schema.properties) ? "object" : isObject(schema.items) ? "array" : "string";
  const num = (k: string) => (typeof schema[k] === "number" ? (schema[k] as number) : undefined);

  switch (type) {
    case "object": {
      const props = isObject(schema.properties) ? schema.properties : {};
      const keys = Array.isArray(schema.required) ? schema.required.filter((k): k is string => typeof k === "string") : Object.keys(props);
      const out: JsonObject = {};
      for (const key of keys) {
        const sub = props[key];
        out[key] = isObject(sub) ? valueFor(sub, d, root, depth + 1) : d.sentence;
      }
      return out;
    }
    case "array": {
      const min = num("minItems") ?? 1;
      const max = num("maxItems") ?? Number.POSITIVE_INFINITY;
      const count = Math.max(0, Math.min(Math.max(min, 1), max));
      const items = isObject(schema.items) ? schema.items : {};
      return Array.from({ length: count }, () => valueFor(items, d, root, depth + 1));
    }
    case "integer":
    case "number": {
      let v = d.words;
      const lo = num("minimum") ?? (num("exclusiveMinimum") !== undefined ? (num("exclusiveMinimum") as number) + 1 : undefined);
      const hi = num("maximum") ?? (num("exclusiveMaximum") !== undefined ? (num("exclusiveMaximum") as number) - 1 : undefined);
      if (lo !== undefined && v < lo) v = lo;
      if (hi !== undefined && v > hi) v = hi;
      return type === "integer" ? Math.round(v) : v;
    }
    case "boolean":
      return d.nonEmpty;
    case "null":
      return null;
    default: {
      const format = typeof schema.format === "string" ? STRING_FORMATS[schema.format] : undefined;
      if (format) return format;
      let s = d.sentence;
      const maxLength = num("maxLength");
      const minLength = num("minLength");
      if (maxLength !== undefined) s = [...s].slice(0, maxLength).join("");
      if (minLength !== undefined && [...s].length < minLength) s = s + ".".repeat(minLength - [...s].length);
      return s;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The reply

const ECHO_MAX_WORDS = 64;
const collapse = (s: string) => s.replace(/\s+/g, " ").trim();

function echo(text: string): string {
  const said = collapse(text);
  if (said === "") return "You said nothing.";
  const words = said.split(" ");
  const shown = words.length > ECHO_MAX_WORDS ? `${words.slice(0, ECHO_MAX_WORDS).join(" ")} …` : said;
  return `You said: ${shown}${/[.!?…]$/.test(shown) ? "" : "."}`;
}

const GOODBYE_RE = /\b(good[\s-]?bye|bye)\b/i;

/** Where a tool is named in the text (its name, or the name with `_`/`-` read as spaces), or -1. */
function mentionAt(text: string, name: string): number {
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const spaced = name.replace(/[_-]+/g, " ");
  let best = -1;
  for (const form of new Set([name, spaced])) {
    const m = new RegExp(`(^|[^\\p{L}\\p{N}_])${esc(form)}(?=$|[^\\p{L}\\p{N}_])`, "iu").exec(text);
    if (m && (best === -1 || m.index < best)) best = m.index;
  }
  return best;
}

type Reply = { kind: "text"; content: string } | { kind: "tool"; calls: Array<{ name: string; arguments: string }> };

/** A rule of the system prompt: `When the user says "<phrase>", call <tool>` and optionally ` with <JSON object>`, ended by `.`. */
const RULE_RE = /When the user says "([^"]+)", call ([A-Za-z0-9_-]{1,64})(?: with (\{[^\n]*?\}))?\.(?=\s|$)/g;

/** The first rule whose phrase the last user message contains (case-insensitive) and whose tool is offered: that call. */
function ruleFor(system: string, lastUser: string, tools: Tool[]): { name: string; arguments: string } | null {
  const said = collapse(lastUser).toLowerCase();
  for (const [, phrase, name, args] of system.matchAll(RULE_RE)) {
    if (!phrase || !name || !said.includes(collapse(phrase).toLowerCase()) || !tools.some((t) => t.name === name)) continue;
    return { name, arguments: args ?? "{}" };
  }
  return null;
}

/** A reply rule of the system prompt: `When the user says "<phrase>", reply "<text>".` (the final `.` optional). */
const REPLY_RULE_RE = /When the user says "([^"]+)", reply "([^"]*)"/g;

/** The text of the first reply rule whose phrase the last user message contains (case-insensitive), or null. */
function replyRuleFor(system: string, lastUser: string): string | null {
  const said = collapse(lastUser).toLowerCase();
  for (const [, phrase, text] of system.matchAll(REPLY_RULE_RE))
    if (phrase && said.includes(collapse(phrase).toLowerCase())) return text ?? "";
  return null;
}

/** The first of numbered knowledge passages (`[1] From "name", heading:` then its text, up to the next). */
const FIRST_PASSAGE = /^\[1\] From ("[^"\n]*")[^\n]*:\n([\s\S]*?)(?:\n\n\[2\] From |$)/m;

function decide(req: ChatRequest): Reply {
  const lastUser = [...req.messages].reverse().find((m) => m.role === "user")?.text ?? "";
  const last = req.messages[req.messages.length - 1] as Message;
  const system = req.messages
    .filter((m) => m.role === "system" || m.role === "developer")
    .map((m) => m.text)
    .join("\n");
  const sentence = (() => {
    if (last.role === "tool") {
      // Tool results answer the latest calls: say what each returned, in order (never call again on "auto").
      let first = req.messages.length - 1;
      while (first > 0 && req.messages[first - 1]?.role === "tool") first--;
      return req.messages
        .slice(first)
        .map((m) => {
          const call = req.messages.flatMap((x) => x.toolCalls).find((c) => c.id === m.toolCallId);
          const result = collapse(m.text);
          const words = result.split(" ");
          const shown = words.length > ECHO_MAX_WORDS ? `${words.slice(0, ECHO_MAX_WORDS).join(" ")} …` : result;
          return `The tool ${call ? `${call.function.name} ` : ""}returned: ${shown || "nothing"}${/[.!?…]$/.test(shown) ? "" : "."}`;
        })
        .join(" ");
    }
    // The system prompt's reply rules: a prompt change alters exactly the replies to the lines its rules name.
    const ruled = last.role === "user" ? replyRuleFor(system, lastUser) : null;
    if (ruled !== null) return ruled;
    // Knowledge passages in a system message (src/knowledge/retrieve.ts): the first one answers.
    const passage = FIRST_PASSAGE.exec(system);
    if (passage) return `From ${passage[1]}: ${collapse(passage[2] as string)}`;
    return GOODBYE_RE.test(lastUser) ? `Goodbye! ${echo(lastUser)}` : echo(lastUser);
  })();
  // The two roles of an agent test (dev/sandbox/agent-tests.ts), and a model that ignores the format asked for.
  if (req.model === "fault-prose") return { kind: "text", content: PROSE_ANSWER };
  if (system.startsWith(CALLER_PROMPT_START)) return { kind: "text", content: callerReply(system, req.messages) };
  if (system.startsWith(JUDGE_PROMPT_START)) return { kind: "text", content: judgeReply(system, lastUser) };
  const words = collapse(lastUser) === "" ? 0 : collapse(lastUser).split(" ").length;
  const derive: Derive = { sentence, words, nonEmpty: words > 0 };

  // Tools
  if (req.toolChoice !== "none" && req.tools.length > 0) {
    let chosen: Tool[] = [];
    if (typeof req.toolChoice === "object") {
      const wanted = req.toolChoice.name;
      chosen = req.tools.filter((t) => t.name === wanted).slice(0, 1);
    } else if (req.toolChoice === "required" || last.role === "user") {
      // Every tool the message names is called, in parallel, in the order they are named.
      chosen = req.tools
        .map((t) => ({ t, at: mentionAt(lastUser, t.name) }))
        .filter((m) => m.at !== -1)
        .sort((a, b) => a.at - b.at)
        .map((m) => m.t);
      if (chosen.length === 0 && req.toolChoice === "required" && req.tools[0]) chosen = [req.tools[0]];
    }
    if (chosen.length > 0) {
      return {
        kind: "tool",
        calls: chosen.map((tool) => ({
          name: tool.name,
          arguments: JSON.stringify(tool.parameters ? valueFor(tool.parameters, derive) : {}),
        })),
      };
    }
    // The system prompt's rules: `When the user says "…", call <tool> with {…}.`
    const ruled = last.role === "user" && req.toolChoice === "auto" ? ruleFor(system, lastUser, req.tools) : null;
    if (ruled) return { kind: "tool", calls: [ruled] };
  }

  // JSON
  const rf = req.responseFormat;
  if (rf.type === "json_schema") return { kind: "text", content: JSON.stringify(valueFor(rf.schema, derive)) };
  if (rf.type === "json_object" || /\bjson\b/i.test(system) || /\bjson\b/i.test(lastUser))
    return { kind: "text", content: JSON.stringify({ reply: sentence }) };

  return { kind: "text", content: sentence };
}

function promptTokens(req: ChatRequest): number {
  let n = 0;
  for (const m of req.messages) {
    n += countTokens(m.role) + countTokens(m.text) + countTokens(m.name ?? "");
    for (const c of m.toolCalls) n += countTokens(c.function.name) + countTokens(c.function.arguments);
  }
  if (req.rawTools !== undefined) n += countTokens(JSON.stringify(req.rawTools));
  if (req.responseFormat.type === "json_schema") n += countTokens(JSON.stringify(req.responseFormat.schema));
  return n;
}

const hash = (s: string, len: number) => createHash("sha256").update(s).digest("hex").slice(0, len);

export interface ChatChoice {
  index: number;
  message: { role: "assistant"; content: string | null; refusal: null; annotations: never[]; tool_calls?: ToolCall[] };
  logprobs: null;
  finish_reason: "stop" | "length" | "tool_calls";
}

export interface Completion {
  id: string;
  object: "chat.completion";
  created: number;
  model: string;
  choices: ChatChoice[];
  usage: {
    prompt_tokens: number;
    completion_tokens: number;
    total_tokens: number;
    prompt_tokens_details: { cached_tokens: number; audio_tokens: number };
    completion_tokens_details: {
      reasoning_tokens: number;
      audio_tokens: number;
      accepted_prediction_tokens: number;
      rejected_prediction_tokens: number;
    };
  };
  service_tier: "default";
  system_fingerprint: string;
}

export function complete(req: ChatRequest): Completion {
  const reply = decide(req);
  let choice: Omit<ChatChoice, "index">;
  let tokens: number;
  if (reply.kind === "text") {
    const all = countTokens(reply.content);
    const cut = req.maxTokens !== undefined && all > req.maxTokens;
    const content = cut ? truncateTokens(reply.content, req.maxTokens as number) : reply.content;
    tokens = countTokens(content);
    choice = {
      message: { role: "assistant", content, refusal: null, annotations: [] },
      logprobs: null,
      finish_reason: cut ? "length" : "stop",
    };
  } else {
    // max_tokens bounds all the calls together: the first call's arguments are cut, later calls dropped.
    let budget = req.maxTokens ?? Number.POSITIVE_INFINITY;
    let cut = false;
    tokens = 0;
    const calls: ToolCall[] = [];
    for (const [i, c] of reply.calls.entries()) {
      const nameTokens = countTokens(c.name);
      const all = nameTokens + countTokens(c.arguments);
      if (cut) break;
      let args = c.arguments;
      if (all > budget) {
        if (i > 0) {
          cut = true;
          break;
        }
        args = truncateTokens(c.arguments, Math.max(0, budget - nameTokens));
        cut = true;
      }
      const used = nameTokens + countTokens(args);
      tokens += used;
      budget -= used;
      calls.push({
        id: `call_${hash(`${c.name}\n${c.arguments}\n${req.messages.length}${i > 0 ? `\n${i}` : ""}`, 24)}`,
        type: "function",
        function: { name: c.name, arguments: args },
      });
    }
    choice = {
      message: { role: "assistant", content: null, refusal: null, annotations: [], tool_calls: calls },
      logprobs: null,
      finish_reason: cut ? "length" : "tool_calls",
    };
  }
  const prompt = promptTokens(req);
  const completion = tokens * req.n;
  return {
    id: `chatcmpl-${randomBytes(12).toString("hex")}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: req.model,
    choices: Array.from({ length: req.n }, (_, index) => ({ index, ...structuredClone(choice) })),
    usage: {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
    },
    service_tier: "default",
    system_fingerprint: "fp_sandbox",
  };
}

/** The completion as OpenAI's server-sent events: `data: {chunk}\n\n` … `data: [DONE]\n\n`. */
export function streamEvents(c: Completion, includeUsage: boolean): string[] {
  const base = {
    id: c.id,
    object: "chat.completion.chunk",
    created: c.created,
    model: c.model,
    service_tier: c.service_tier,
    system_fingerprint: c.system_fingerprint,
  };
  const events: string[] = [];
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    events.push(`data: ${JSON.stringify({ ...base, choices, ...(includeUsage ? { usage: null } : {}), ...extra })}\n\n`);
  for (const ch of c.choices) {
    const delta = (d: Record<string, unknown>, finish: string | null = null) => ({
      index: ch.index,
      delta: d,
      logprobs: null,
      finish_reason: finish,
    });
    const msg = ch.message;
    if (msg.tool_calls) {
      chunk([delta({ role: "assistant", content: null, refusal: null })]);
      msg.tool_calls.forEach((call, i) => {
        chunk([
          delta({ tool_calls: [{ index: i, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } }] }),
        ]);
        for (const piece of streamPieces(call.function.arguments))
          chunk([delta({ tool_calls: [{ index: i, function: { arguments: piece } }] })]);
      });
    } else {
      chunk([delta({ role: "assistant", content: "", refusal: null })]);
      for (const piece of streamPieces(msg.content ?? "")) chunk([delta({ content: piece })]);
    }
    chunk([delta({}, ch.finish_reason)]);
  }
  if (includeUsage) chunk([], { usage: c.usage });
  events.push("data: [DONE]\n\n");
  return events;
}

/** Throws the 404 OpenAI gives for a model it does not serve (the sandbox: ids starting with `missing-`). */
export function checkModel(model: string): void {
  if (model.startsWith("missing-"))
    throw new ApiError(
      404,
      `The model \`${model}\` does not exist or you do not have access to it.`,
      "invalid_request_error",
      "model_not_found",
      "model",
    );
}
