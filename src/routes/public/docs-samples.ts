// The reference page's code samples: each API-key operation as a curl line and as the SDK call
// that makes it. The SDK method comes from the SDK's own operation table (packages/sdk), which a
// unit test holds to the document, so a sample cannot name a method the SDK lacks.
import { OPERATIONS } from "../../../packages/sdk/src/operations";

type Schema = { $ref?: string; type?: string; example?: unknown; properties?: Record<string, Schema>; required?: string[] };
type Components = { schemas?: Record<string, Schema> };
export interface SampledOperation {
  operationId?: string;
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  parameters?: Array<{ name: string; in: string; required?: boolean; example?: unknown; schema?: Schema }>;
}

export interface Samples {
  curl: string;
  sdk: string;
}

const SDK_METHODS: Record<string, string> = Object.fromEntries(Object.entries(OPERATIONS).map(([id, spec]) => [id, spec.sdk]));

const resolve = (schema: Schema | undefined, components: Components): Schema | undefined =>
  schema?.$ref ? components.schemas?.[schema.$ref.replace("#/components/schemas/", "")] : schema;

/** The schema's own example, or one built from its properties' examples (the required ones, else all). */
function exampleOf(schema: Schema | undefined, components: Components): Record<string, unknown> {
  const s = resolve(schema, components);
  if (!s) return {};
  if (s.example && typeof s.example === "object") return s.example as Record<string, unknown>;
  const withExample = Object.entries(s.properties ?? {}).filter(([, p]) => resolve(p, components)?.example !== undefined);
  const required = withExample.filter(([name]) => s.required?.includes(name));
  return Object.fromEntries((required.length ? required : withExample).map(([name, p]) => [name, resolve(p, components)?.example]));
}

/** `{deliveryId}` → the shell's `$DELIVERY_ID` and the script's `deliveryId`. */
const shellVar = (name: string) => `$${name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase()}`;
const pathParams = (path: string) => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);

const indent = (json: string) => json.replace(/\n/g, "\n  ");

/** The samples of one operation, or null when the SDK does not call it (public and dashboard operations). */
export function samplesFor(origin: string, method: string, path: string, op: SampledOperation, components: Components): Samples | null {
  const sdk = op.operationId ? SDK_METHODS[op.operationId] : undefined;
  if (!sdk) return null;
  const content = op.requestBody?.content ?? {};
  const json = content["application/json"] ? exampleOf(content["application/json"].schema, components) : null;
  // An operation that takes either (a knowledge document: a file, or text and URLs as JSON) is shown with JSON.
  const multipart = !json && content["multipart/form-data"] ? exampleOf(content["multipart/form-data"].schema, components) : null;
  const params = pathParams(path);

  const url = `${origin}${path.replace(/\{(\w+)\}/g, (_, name: string) => shellVar(name))}`;
  const curl = [`curl -X ${method.toUpperCase()} "${url}" \\`, `  -H "Authorization: Bearer $API_KEY"`];
  if (json) curl[1] += ` \\\n  -H "content-type: application/json" \\\n  -d '${JSON.stringify(json).replaceAll("'", "'\\''")}'`;
  if (multipart) {
    const fields = Object.entries(multipart).filter(([k]) => k !== "file");
    curl[1] += ` \\\n  -F file=@call.wav${fields.map(([k, v]) => ` \\\n  -F ${k}=${String(v)}`).join("")}`;
  }

  // A path parameter is the script's variable of its name, converted where the SDK takes a number (an agent's version).
  const numeric = new Set(
    (op.parameters ?? []).filter((p) => p.in === "path" && ["integer", "number"].includes(p.schema?.type ?? "")).map((p) => p.name),
  );
  const args: string[] = params.map((name) => (numeric.has(name) ? `Number(${name})` : name));
  if (json) args.push(indent(JSON.stringify(json, null, 2)));
  if (multipart) {
    const fields = Object.entries(multipart).filter(([k]) => k !== "file");
    args.push(`{ file: await readFile("call.wav")${fields.map(([k, v]) => `, ${k}: ${JSON.stringify(v)}`).join("")} }`);
  }
  const call = `client.${sdk}(${args.join(", ")})`;
  const head = 'import { VoiceAgentPlatform } from "@voice-agent-platform/sdk";\n';
  const client = `const client = new VoiceAgentPlatform({ apiKey: process.env.API_KEY!, baseURL: "${origin}" });\n`;
  const body = sdk.endsWith(".list") ? `for await (const item of ${call}) console.log(item.id);` : `const result = await ${call};`;
  return { curl: curl.join("\n"), sdk: `${head}${multipart ? 'import { readFile } from "node:fs/promises";\n' : ""}${client}${body}` };
}
