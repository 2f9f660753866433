// Field validators shared by the schemas: text measured in Unicode code points (as JSON
// Schema's maxLength is), BCP 47 language tags, free-form JSON metadata, and instants that
// Postgres can store. Every string that reaches Postgres is checked for what Postgres refuses
// (NUL, lone surrogates) by `textProblem`: the edge guard (src/middleware/guards.ts) runs it over
// every path segment, query parameter, JSON value and form field of every request, through
// `findBadText`, so such input is a 400 naming the field, never a 500.
import { z } from "@hono/zod-openapi";

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const CONTROL = /\p{Cc}/u;

export const codePoints = (s: string): number => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

/** Why a string cannot be stored as given, or null. */
export function textProblem(s: string, singleLine = false): string | null {
  if (s.includes("\u0000")) return "must not contain NUL (U+0000)";
  if (LONE_SURROGATE.test(s)) return "must be well-formed Unicode (no lone surrogates)";
  if (singleLine && CONTROL.test(s)) return "must not contain control characters such as line breaks or tabs";
  return null;
}

/** A problem with one string of a request, and where it is (`messages.0.content`, `token`). */
export interface TextIssue {
  path: string;
  message: string;
}

/** Shows a name with a bad character in an error message without echoing that character. */
const printable = (s: string) => s.replaceAll("\u0000", "\uFFFD").replace(new RegExp(LONE_SURROGATE, "g"), "\uFFFD");

const joinPath = (parent: string, key: string | number) => (parent ? `${parent}.${key}` : String(key));

/**
 * The first string in a parsed JSON value (object keys included) that Postgres would refuse,
 * or null. Iterative, so a deeply nested body cannot overflow the stack. `path` names the value
 * itself (for a top-level string, or "" for the root object).
 */
export function findBadText(value: unknown, path = ""): TextIssue | null {
  const stack: Array<[unknown, string]> = [[value, path]];
  while (stack.length > 0) {
    const [v, at] = stack.pop() as [unknown, string];
    if (typeof v === "string") {
      const problem = textProblem(v);
      if (problem) return { path: at || "(root)", message: problem };
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], joinPath(at, i)]);
    } else if (typeof v === "object" && v !== null) {
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i] as [string, unknown];
        const problem = textProblem(key);
        if (problem) return { path: joinPath(at, printable(key)), message: `property name ${problem}` };
        stack.push([child, joinPath(at, key)]);
      }
    }
  }
  return null;
}

/** The name of a field, query parameter or path parameter, checked like its value. */
export function badName(name: string, where: string): TextIssue | null {
  const problem = textProblem(name);
  return problem ? { path: printable(name) || where, message: `${where} name ${problem}` } : null;
}

/**
 * Instants Postgres and JavaScript both store and print as ISO 8601 with a four-digit year:
 * 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z. (Postgres has no year 0, and a year past
 * 9999 prints as +010000, which it does not read back.)
 */
export const INSTANT_RANGE = { min: Date.parse("0001-01-01T00:00:00.000Z"), max: Date.parse("9999-12-31T23:59:59.999Z") } as const;

/** An ISO 8601 instant with an offset (Z or ±hh:mm), within INSTANT_RANGE once converted to UTC. */
export const instant = () =>
  z.iso
    .datetime({ offset: true })
    .refine(
      (s) => {
        const t = Date.parse(s);
        return Number.isFinite(t) && t >= INSTANT_RANGE.min && t <= INSTANT_RANGE.max;
      },
      { message: "must be between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z" },
    )
    .openapi({ format: "date-time", example: "2025-01-15T09:30:00Z" });

/**
 * A string of `min`..`max` Unicode code points (an emoji counts as one). `trim` strips
 * surrounding whitespace first; `singleLine` refuses control characters.
 */
export function text(opts: { min?: number; max: number; trim?: boolean; singleLine?: boolean }) {
  const min = opts.min ?? 0;
  const base = opts.trim ? z.string().trim() : z.string();
  return base
    .superRefine((s, ctx) => {
      const problem = textProblem(s, opts.singleLine);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
      const n = codePoints(s);
      if (n < min) ctx.addIssue({ code: "custom", message: min === 1 ? "must not be empty" : `must be at least ${min} characters` });
      if (n > opts.max) ctx.addIssue({ code: "custom", message: `must be at most ${opts.max} characters (got ${n})` });
    })
    .openapi({ ...(min > 0 ? { minLength: min } : {}), maxLength: opts.max });
}

/** language[-Script][-REGION]: en, en-US, pt-BR, zh-Hant-TW, es-419. */
const LANGUAGE_TAG = /^([A-Za-z]{2,3})(?:-([A-Za-z]{4}))?(?:-([A-Za-z]{2}|[0-9]{3}))?$/;

/** Canonical case of a tag: language lower, Script title, REGION upper (en-us -> en-US). */
export function canonicalLanguage(tag: string): string {
  const m = LANGUAGE_TAG.exec(tag);
  if (!m) return tag;
  const [, language = "", script, region] = m;
  const parts = [language.toLowerCase()];
  if (script) parts.push(script.charAt(0).toUpperCase() + script.slice(1).toLowerCase());
  if (region) parts.push(region.toUpperCase());
  return parts.join("-");
}

export const languageTag = () =>
  z
    .string()
    .regex(LANGUAGE_TAG, "must be a BCP 47 language tag: language[-Script][-REGION], e.g. en, en-US, zh-Hant-TW, es-419")
    .overwrite(canonicalLanguage)
    .openapi({ description: "BCP 47 tag, returned in canonical case (en-us becomes en-US).", example: "en-US" });

export const METADATA_LIMITS = { bytes: 16 * 1024, keys: 50, depth: 5 } as const;

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The first problem found in a JSON value, or null; `depth` counts objects and arrays. */
function jsonProblem(value: unknown, depth: number): string | null {
  if (typeof value === "string") return textProblem(value);
  if (typeof value !== "object" || value === null) return null;
  if (depth > METADATA_LIMITS.depth) return `must not nest objects or arrays more than ${METADATA_LIMITS.depth} levels deep`;
  const entries = Array.isArray(value) ? value.map((v) => ["", v] as const) : Object.entries(value);
  for (const [key, v] of entries) {
    const problem = (key ? textProblem(key) : null) ?? jsonProblem(v, depth + 1);
    if (problem) return problem;
  }
  return null;
}

/**
 * A JSON object kept as sent (z.custom passes the parsed object through, so no key such as
 * `__proto__` is dropped), at most 16 KB serialized, 50 top-level keys, 5 levels deep.
 */
export const metadataSchema = () =>
  z
    .custom<Record<string, unknown>>(isPlainObject, { message: "must be a JSON object" })
    .superRefine((m, ctx) => {
      const keys = Object.keys(m).length;
      if (keys > METADATA_LIMITS.keys)
        ctx.addIssue({ code: "custom", message: `must have at most ${METADATA_LIMITS.keys} keys (got ${keys})` });
      const bytes = new TextEncoder().encode(JSON.stringify(m)).length;
      if (bytes > METADATA_LIMITS.bytes) {
        ctx.addIssue({ code: "custom", message: `must be at most ${METADATA_LIMITS.bytes} bytes as JSON (got ${bytes})` });
      }
      const problem = jsonProblem(m, 1);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    })
    .openapi({
      type: "object",
      additionalProperties: true,
      description: "Your own JSON object, returned as sent: at most 16 KB serialized, 50 top-level keys, 5 levels deep.",
      example: { crmAccountId: "A-1042", team: "support" },
    });

/** At least one field: an empty PATCH is almost always a client bug. */
export const nonEmptyPatch = (v: object) => Object.keys(v).length > 0;
export const NON_EMPTY_PATCH = { message: "send at least one field to update" };
