// JSON Schema for tool parameters, in Workers: @cfworker/json-schema interprets schemas (no eval,
// no new Function, which workerd forbids and Ajv's compiled validators need). A tool's
// `parameters` is checked once when it is saved (against the draft-07 meta-schema, plus our own
// rules: an object schema, local $refs only, size and depth caps) and the model's arguments are
// checked against it before every request (docs/tools.md).
import { type Schema, Validator } from "@cfworker/json-schema";

/**
 * The draft-07 meta-schema (json-schema.org/draft-07/schema), the dialect OpenAI's function
 * `parameters` are written in. Held here: the library ships no meta-schemas, and nothing is fetched.
 */
const DRAFT_07: Schema = {
  $schema: "http://json-schema.org/draft-07/schema#",
  $id: "http://json-schema.org/draft-07/schema#",
  definitions: {
    schemaArray: { type: "array", minItems: 1, items: { $ref: "#" } },
    nonNegativeInteger: { type: "integer", minimum: 0 },
    nonNegativeIntegerDefault0: { allOf: [{ $ref: "#/definitions/nonNegativeInteger" }, { default: 0 }] },
    simpleTypes: { enum: ["array", "boolean", "integer", "null", "number", "object", "string"] },
    stringArray: { type: "array", items: { type: "string" }, uniqueItems: true, default: [] },
  },
  type: ["object", "boolean"],
  properties: {
    $id: { type: "string", format: "uri-reference" },
    $schema: { type: "string", format: "uri" },
    $ref: { type: "string", format: "uri-reference" },
    $comment: { type: "string" },
    title: { type: "string" },
    description: { type: "string" },
    default: true,
    readOnly: { type: "boolean", default: false },
    examples: { type: "array", items: true },
    multipleOf: { type: "number", exclusiveMinimum: 0 },
    maximum: { type: "number" },
    exclusiveMaximum: { type: "number" },
    minimum: { type: "number" },
    exclusiveMinimum: { type: "number" },
    maxLength: { $ref: "#/definitions/nonNegativeInteger" },
    minLength: { $ref: "#/definitions/nonNegativeIntegerDefault0" },
    pattern: { type: "string", format: "regex" },
    additionalItems: { $ref: "#" },
    items: { anyOf: [{ $ref: "#" }, { $ref: "#/definitions/schemaArray" }], default: true },
    maxItems: { $ref: "#/definitions/nonNegativeInteger" },
    minItems: { $ref: "#/definitions/nonNegativeIntegerDefault0" },
    uniqueItems: { type: "boolean", default: false },
    contains: { $ref: "#" },
    maxProperties: { $ref: "#/definitions/nonNegativeInteger" },
    minProperties: { $ref: "#/definitions/nonNegativeIntegerDefault0" },
    required: { $ref: "#/definitions/stringArray" },
    additionalProperties: { $ref: "#" },
    definitions: { type: "object", additionalProperties: { $ref: "#" }, default: {} },
    properties: { type: "object", additionalProperties: { $ref: "#" }, default: {} },
    patternProperties: { type: "object", additionalProperties: { $ref: "#" }, propertyNames: { format: "regex" }, default: {} },
    dependencies: { type: "object", additionalProperties: { anyOf: [{ $ref: "#" }, { $ref: "#/definitions/stringArray" }] } },
    propertyNames: { $ref: "#" },
    const: true,
    enum: { type: "array", minItems: 1, uniqueItems: true },
    type: {
      anyOf: [
        { $ref: "#/definitions/simpleTypes" },
        { type: "array", items: { $ref: "#/definitions/simpleTypes" }, minItems: 1, uniqueItems: true },
      ],
    },
    format: { type: "string" },
    contentMediaType: { type: "string" },
    contentEncoding: { type: "string" },
    if: { $ref: "#" },
    // biome-ignore lint/suspicious/noThenProperty: draft-07's own keyword (if/then/else), not a thenable
    then: { $ref: "#" },
    else: { $ref: "#" },
    allOf: { $ref: "#/definitions/schemaArray" },
    anyOf: { $ref: "#/definitions/schemaArray" },
    oneOf: { $ref: "#/definitions/schemaArray" },
    not: { $ref: "#" },
  },
  default: true,
};

/** One meta-schema validator per isolate (it holds no request state). */
let metaValidator: Validator | null = null;
const meta = () => {
  metaValidator ??= new Validator(DRAFT_07, "7", false);
  return metaValidator;
};

/** A `parameters` schema serialised: at most this many bytes of UTF-8. */
export const PARAMETERS_MAX_BYTES = 16 * 1024;
/** Objects and arrays nested in a `parameters` schema, itself counted. */
export const PARAMETERS_MAX_DEPTH = 12;

const utf8 = new TextEncoder();

function depthOf(value: unknown, depth = 1): number {
  if (typeof value !== "object" || value === null) return depth - 1;
  let max = depth;
  for (const v of Object.values(value)) max = Math.max(max, depthOf(v, depth + 1));
  return max;
}

/** Every `$ref` in the schema (string values of a `$ref` key, anywhere). */
function refsOf(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) refsOf(v, out);
  else if (typeof value === "object" && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      if (k === "$ref" && typeof v === "string") out.push(v);
      else refsOf(v, out);
    }
  }
  return out;
}

/** Resolves a local JSON pointer (`#`, `#/definitions/x`) in the schema; undefined when it names nothing. */
function resolvePointer(root: unknown, ref: string): unknown {
  if (ref === "#") return root;
  let node: unknown = root;
  for (const part of ref.slice(2).split("/")) {
    const key = decodeURIComponent(part).replace(/~1/g, "/").replace(/~0/g, "~");
    node = typeof node === "object" && node !== null ? (node as Record<string, unknown>)[key] : undefined;
  }
  return node;
}

/**
 * The problems of a tool's `parameters`, each as a message (empty: the schema is usable). A valid
 * draft-07 schema whose root is an object schema (`type: "object"`), whose `$ref`s all point
 * inside itself (no remote documents are ever fetched), within the size and depth caps.
 */
export function parametersProblems(schema: unknown): string[] {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return ["must be a JSON Schema object"];
  const bytes = utf8.encode(JSON.stringify(schema)).length;
  if (bytes > PARAMETERS_MAX_BYTES) return [`must be at most ${PARAMETERS_MAX_BYTES} bytes of JSON (it is ${bytes})`];
  if (depthOf(schema) > PARAMETERS_MAX_DEPTH) return [`must nest at most ${PARAMETERS_MAX_DEPTH} levels of objects and arrays`];
  const result = meta().validate(schema);
  if (!result.valid) {
    // The deepest errors say the most; the library lists the outer ones first.
    const seen = new Set<string>();
    const messages: string[] = [];
    for (const e of [...result.errors].reverse()) {
      const where = e.instanceLocation.replace(/^#/, "") || "/";
      const line = `is not a valid JSON Schema at ${where}: ${e.error}`;
      if (!seen.has(where)) messages.push(line);
      seen.add(where);
      if (messages.length >= 1) break;
    }
    return messages;
  }
  const root = schema as Record<string, unknown>;
  const problems: string[] = [];
  if (root.type !== "object") problems.push('must be the schema of an object: its "type" must be "object"');
  for (const ref of refsOf(schema)) {
    if (!ref.startsWith("#")) problems.push(`$ref "${ref}" must point inside the schema (#/…): remote schemas are not fetched`);
    else if (ref !== "#" && !ref.startsWith("#/")) problems.push(`$ref "${ref}" must be a JSON pointer (#/…)`);
    else if (resolvePointer(schema, ref) === undefined) problems.push(`$ref "${ref}" points at nothing in the schema`);
  }
  return problems;
}

/** A checker of arguments against a saved `parameters` schema (every error, for the model to fix). */
export function argumentsValidator(schema: Record<string, unknown>): (args: unknown) => string[] {
  const validator = new Validator(schema as Schema, "7", false);
  return (args) => {
    const result = validator.validate(args);
    if (result.valid) return [];
    const out = result.errors
      .filter((e) => e.keyword !== "properties" && e.keyword !== "allOf" && e.keyword !== "$ref")
      .map((e) => `${e.instanceLocation.replace(/^#/, "") || "/"}: ${e.error}`);
    return (out.length ? out : result.errors.map((e) => e.error)).slice(0, 5);
  };
}
