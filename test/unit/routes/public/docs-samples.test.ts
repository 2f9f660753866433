// The reference page's code samples: every operation the SDK calls gets a curl line and an SDK
// call, both well-formed, with the same example body; operations the SDK does not call get none.
// Each SDK sample compiles, strict, against the SDK's source: the method, its arguments and the
// example body are what the SDK takes (so the body is also what the route's schema requires).
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { OPERATIONS } from "../../../../packages/sdk/src/operations";
import { createApp } from "../../../../src/app";
import { type SampledOperation, samplesFor } from "../../../../src/routes/public/docs-samples";
import { openApiDocument } from "../../../../src/routes/public/openapi";

const ORIGIN = "https://api.example.com";
const app = createApp();
const doc = openApiDocument(app, ORIGIN);
const components = (doc.components ?? {}) as Parameters<typeof samplesFor>[4];
const operations = Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
  Object.entries(item as Record<string, SampledOperation>)
    .filter(([method]) => ["get", "post", "patch", "delete"].includes(method))
    .map(([method, op]) => ({ method, path, op })),
);
const syntaxErrors = (source: string) =>
  (ts.createSourceFile("sample.ts", source, ts.ScriptTarget.ES2022, true) as unknown as { parseDiagnostics: ts.Diagnostic[] })
    .parseDiagnostics;

const SDK_ENTRY = fileURLToPath(new URL("../../../../packages/sdk/src/index.ts", import.meta.url));

/** Type errors of each sample (a module of its own, path parameters declared as strings), as `file: message`. */
function typeErrors(samples: Array<{ name: string; path: string; source: string }>): string[] {
  const files = new Map(
    samples.map(({ name, path, source }) => {
      const params = [...path.matchAll(/\{(\w+)\}/g)].map((m) => `declare const ${m[1]}: string;\n`).join("");
      return [`/samples/${name}.ts`, `${params}${source}\nexport {};\n`];
    }),
  );
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ["lib.es2023.d.ts", "lib.dom.d.ts"],
    types: ["node"],
    typeRoots: [fileURLToPath(new URL("../../../../node_modules/@types", import.meta.url))],
    paths: { "@voice-agent-platform/sdk": [SDK_ENTRY] },
  };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (f) => files.has(f) || fileExists(f);
  host.readFile = (f) => files.get(f) ?? readFile(f);
  host.getSourceFile = (f, lang, ...rest) => {
    const text = files.get(f);
    return text === undefined ? getSourceFile(f, lang, ...rest) : ts.createSourceFile(f, text, lang);
  };
  const program = ts.createProgram([...files.keys()], options, host);
  return ts
    .getPreEmitDiagnostics(program)
    .map((d) => `${d.file?.fileName ?? "(program)"}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`);
}

describe("reference page samples", () => {
  it("gives every SDK operation a curl line and an SDK call that parses, and nothing else a sample", () => {
    const sampled = operations.filter(({ method, path, op }) => samplesFor(ORIGIN, method, path, op, components));
    expect(sampled.map(({ op }) => op.operationId).sort()).toEqual(Object.keys(OPERATIONS).sort());
    for (const { method, path, op } of sampled) {
      const s = samplesFor(ORIGIN, method, path, op, components);
      if (!s) throw new Error("no samples");
      const sdk = OPERATIONS[op.operationId as keyof typeof OPERATIONS].sdk;
      expect(s.curl.startsWith(`curl -X ${method.toUpperCase()} "${ORIGIN}/`), op.operationId).toBe(true);
      expect(s.curl).toContain('-H "Authorization: Bearer $API_KEY"');
      expect(s.curl).not.toMatch(/[{}]\w+[{}]/); // no {id}: curl would glob it
      expect(s.sdk).toContain(`client.${sdk}(`);
      expect(syntaxErrors(s.sdk), `${op.operationId}:\n${s.sdk}`).toEqual([]);
    }
  });

  it("compiles every SDK sample against the SDK, strict: methods, arguments and example bodies as the SDK takes them", () => {
    const samples = operations.flatMap(({ method, path, op }) => {
      const s = samplesFor(ORIGIN, method, path, op, components);
      return s ? [{ name: op.operationId as string, path, source: s.sdk }] : [];
    });
    expect(samples.length).toBe(Object.keys(OPERATIONS).length);
    expect(typeErrors(samples)).toEqual([]);
    // The check itself: a body the SDK refuses is an error.
    const agent = samples.find((s) => s.name === "createAgent");
    if (!agent) throw new Error("no createAgent sample");
    const misspelt = { ...agent, source: agent.source.replace('"personaId"', '"persona"') };
    expect(typeErrors([misspelt])).toEqual([expect.stringContaining("persona")]);
  }, 60_000);

  it("names path parameters the same way in both, and sends the same example body", () => {
    const [update] = operations.filter(({ op }) => op.operationId === "updatePhoneNumber");
    const s = update && samplesFor(ORIGIN, update.method, update.path, update.op, components);
    expect(s?.curl).toContain(`"${ORIGIN}/v1/phone-numbers/$ID"`);
    expect(s?.sdk).toContain("client.phoneNumbers.update(id, {");
    const curlBody = JSON.parse(/-d '(.*)'/.exec(s?.curl ?? "")?.[1] ?? "null");
    expect(curlBody).toEqual({ agentId: "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77" });

    const [resend] = operations.filter(({ op }) => op.operationId === "resendWebhookDelivery");
    const r = resend && samplesFor(ORIGIN, resend.method, resend.path, resend.op, components);
    expect(r?.curl).toContain("$ID/deliveries/$DELIVERY_ID");
    expect(r?.sdk).toContain("client.webhookEndpoints.deliveries.resend(id, deliveryId");
  });

  it("uploads a file for speech-to-text and walks every page of a list", () => {
    const stt = operations.find(
      ({ op }) => op.operationId === "transcribe" || OPERATIONS[op.operationId as keyof typeof OPERATIONS]?.sdk === "stt.create",
    );
    const s = stt && samplesFor(ORIGIN, stt.method, stt.path, stt.op, components);
    expect(s?.curl).toContain("-F file=@call.wav");
    expect(s?.sdk).toContain('file: await readFile("call.wav")');
    const list = operations.find(({ op }) => op.operationId === "listAgents");
    const l = list && samplesFor(ORIGIN, list.method, list.path, list.op, components);
    expect(l?.sdk).toContain("for await (const item of client.agents.list())");
  });
});
