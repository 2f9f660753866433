// Writes the OpenAPI document to a file (default openapi.json at the top, gitignored), built as
// /v1/openapi.json serves it: the whole app's routes (createApp) through openApiDocument, with no
// server. `npm run openapi:lint` lints the file with Redocly's CLI (rules: redocly.yaml).
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { createApp } from "../src/app";
import { openApiDocument } from "../src/routes/public/openapi";

const out = resolve(process.argv[2] ?? "openapi.json");
// "/": the server is wherever the document is served from (a relative URL, OpenAPI 3.1 §4.8.5);
// the served document names the origin it was fetched from.
const doc = openApiDocument(createApp(), "/");
writeFileSync(out, `${JSON.stringify(doc, null, 2)}\n`);
const operations = Object.values(doc.paths ?? {}).reduce((n, item) => n + Object.keys(item as object).length, 0);
console.log(`${out}: ${operations} operations, ${Object.keys(doc.webhooks ?? {}).length} webhooks`);
