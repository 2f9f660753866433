// What the knowledge bench reads and searches: a knowledge base of 10,000 passages seeded through
// the database (as bench/dashboard.ts seeds calls), questions to ask of it, and the 100-page PDF
// uploaded through the API.
//
// The passages are a company's documents of many kinds (catalogues, manuals, policies, handbooks,
// price lists), written from sentence patterns with varied words, names, numbers and units, so no
// two are alike and their vocabularies overlap as real documents' do. Each is embedded with the
// provider sandbox's own function (dev/sandbox/embeddings.ts, what the worker gets from
// POST /v1/embeddings) and stored with knowledge_embedding(text), as the worker's ingestion stores
// them (src/knowledge/queries/chunks.ts), into ready documents of 200 passages each.
import { createHash, randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { sandboxEmbedding } from "../dev/sandbox/embeddings";
import { createDb } from "../src/db/client";
import { EMBEDDING_DIMENSIONS, knowledgeChunks, knowledgeDocuments } from "../src/db/schema";
import { estimateTokens } from "../src/knowledge/chunk";
import { embeddingInput } from "../src/knowledge/ingest";
import { vectorLiteral } from "../src/knowledge/queries/chunks";
import { makePdf } from "../test/support/pdf";

/** A small seeded generator (mulberry32): the same text on every run. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const words = (s: string) => s.split(" ");
const W = {
  product: words(
    "espresso-machine kettle toaster blender dishwasher fridge freezer oven microwave vacuum-cleaner air-purifier dehumidifier heater fan " +
      "router modem printer scanner laptop tablet monitor keyboard headset speaker camera drone bicycle e-scooter treadmill rowing-machine " +
      "tent backpack sleeping-bag jacket boots helmet stroller car-seat crib mattress sofa desk chair lamp thermostat doorbell smoke-alarm",
  ),
  part: words(
    "filter battery charger cable adapter lid handle hinge seal gasket valve pump motor fan-blade brush nozzle hose tray drawer shelf " +
      "display button knob switch sensor firmware remote strap buckle zip wheel brake chain pedal saddle frame screen lens",
  ),
  topic: words(
    "warranty delivery installation returns refunds invoices payment subscription cleaning maintenance safety storage recycling " +
      "troubleshooting registration accessories spare-parts opening-hours appointments parking insurance privacy accessibility " +
      "training onboarding holidays overtime expenses travel security passwords backups complaints discounts loyalty-points gift-cards",
  ),
  verb: words(
    "replace clean inspect charge reset update register cancel renew return exchange order collect install remove adjust tighten " +
      "lubricate calibrate store dispose request confirm approve submit",
  ),
  adj: words(
    "new used damaged faulty original spare standard premium compact portable wireless rechargeable waterproof stainless " +
      "certified approved optional annual monthly weekly urgent free discounted",
  ),
  dur: words("minutes hours days weeks months years"),
  money: words("dollars euros"),
  measure: words("watts litres kilograms centimetres decibels"),
  place: words(
    "warehouse front-desk service-centre head-office showroom outlet branch workshop depot reception call-centre website app portal",
  ),
  person: words(
    "customer technician manager cashier courier installer supervisor employee contractor member visitor patient guest driver buyer",
  ),
  day: words("Monday Tuesday Wednesday Thursday Friday Saturday Sunday weekday weekend"),
  city: words("Springfield Riverton Lakeside Maplewood Brookfield Fairview Kingston Ashford Oakridge Westport Greenhill Northgate"),
};
type Slot = keyof typeof W;

const SENTENCES = [
  "The {product} comes with a {adj} {part} and a {n} {dur} warranty.",
  "To {verb} the {part}, switch the {product} off and wait {n} {dur}.",
  "A {person} can {verb} a {adj} {part} at any {place} in {city}.",
  "A {adj} {part} for the {product} costs {n} {money} at the {place}.",
  "Our {place} in {city} is open from {day} to {day}, {n} hours a day.",
  "If the {part} of your {product} is {adj}, contact the {place} within {n} {dur}.",
  "Questions about {topic} are handled by the {place}; a {person} answers within {n} {dur}.",
  "The {adj} {product} is rated at {n} {measure} and its {part} lasts about {n} {dur}.",
  "Please {verb} the {part} every {n} {dur} to keep the {product} in good order.",
  "Members pay {n} {money} less for {topic} and get a {adj} {part} for free.",
  "The {person} must {verb} the {product} before it leaves the {place}.",
  "For {topic}, bring the receipt and the {adj} {part} to the {place} on {day}.",
  "Orders of a {product} over {n} {money} ship free to {city} on {day}.",
  "Never {verb} a {adj} {part} yourself: ask a {person} at the {place}.",
  "Our {topic} policy covers every {product} bought at the {place} or through the {place}.",
  "Error {n} on the {product} means the {part} needs attention from a {person}.",
  "The {place} keeps {adj} {part}s for the {product} for {n} {dur} after purchase.",
];
const HEADINGS = [
  "{product} user guide › {topic}",
  "{topic} policy › {product}",
  "Price list › {product} › {part}",
  "Employee handbook › {topic}",
  "Service manual › {product} › {part}",
  "Frequently asked questions › {topic}",
];
const QUESTIONS = [
  "How do I {verb} the {part} of my {product}?",
  "What is the warranty on a {adj} {product}?",
  "Where can I {verb} a {part} in {city}?",
  "When is the {place} open on {day}?",
  "How much does a {adj} {part} for the {product} cost?",
  "Who handles {topic} at the {place}?",
  "What does error {n} on the {product} mean?",
  "Can a {person} {verb} my {product} at home?",
];

const fill = (pattern: string, rnd: () => number) =>
  pattern.replace(/\{(\w+)\}/g, (_, slot: string) => {
    if (slot === "n") return String(1 + Math.floor(rnd() * (rnd() < 0.7 ? 12 : 250)));
    const list = W[slot as Slot];
    return (list[Math.floor(rnd() * list.length)] as string).replace(/-/g, " ");
  });

/** Passage `i` of the seed: a heading path and 3 to 12 sentences (about 50 to 200 tokens). */
export function seedPassage(i: number): { heading: string; content: string } {
  const rnd = random(0x5eed + i * 7919);
  const heading = fill(HEADINGS[i % HEADINGS.length] as string, rnd);
  const n = 3 + Math.floor(rnd() * 10);
  const content = Array.from({ length: n }, () => fill(SENTENCES[Math.floor(rnd() * SENTENCES.length)] as string, rnd)).join(" ");
  return { heading: heading.charAt(0).toUpperCase() + heading.slice(1), content };
}

/** `count` questions in the seed's words, each different. */
export const seedQuestions = (count: number, seed = 1): string[] =>
  Array.from({ length: count }, (_, i) => fill(QUESTIONS[i % QUESTIONS.length] as string, random(seed * 104_729 + i)));

export const PASSAGES_PER_DOCUMENT = 200;

/**
 * Seeds `count` passages into the knowledge base `knowledgeBaseId`, embedded, in ready documents;
 * then analyzes the tables as autovacuum would after such growth. Returns the seconds it took.
 */
export async function seedKnowledgeBase(
  databaseUrl: string,
  wsProxy: string | undefined,
  target: { organizationId: string; knowledgeBaseId: string; count: number },
  log: (line: string) => void,
): Promise<number> {
  const t0 = performance.now();
  const { db, pool } = createDb(databaseUrl, wsProxy, 2);
  const BATCH = 100;
  try {
    for (let at = 0, doc = 0; at < target.count; at += PASSAGES_PER_DOCUMENT, doc++) {
      const n = Math.min(PASSAGES_PER_DOCUMENT, target.count - at);
      const passages = Array.from({ length: n }, (_, k) => seedPassage(at + k));
      const text = passages.map((p) => `${p.heading}\n\n${p.content}`).join("\n\n");
      const [row] = await db
        .insert(knowledgeDocuments)
        .values({
          organizationId: target.organizationId,
          knowledgeBaseId: target.knowledgeBaseId,
          name: `Company documents, part ${doc + 1}.md`,
          source: "text",
          contentType: "text/markdown",
          sizeBytes: Buffer.byteLength(text),
          contentHash: createHash("sha256").update(text).digest("hex"),
          objectKey: `bench/${randomUUID()}`,
          status: "ready",
          chunkCount: n,
          embeddedCount: n,
        })
        .returning({ id: knowledgeDocuments.id });
      const documentId = (row as { id: string }).id;
      for (let b = 0; b < n; b += BATCH) {
        await db.insert(knowledgeChunks).values(
          passages.slice(b, b + BATCH).map((p, k) => ({
            organizationId: target.organizationId,
            knowledgeBaseId: target.knowledgeBaseId,
            documentId,
            position: b + k,
            heading: p.heading,
            content: p.content,
            tokens: estimateTokens(p.content),
            embedding: sql`knowledge_embedding(${vectorLiteral(sandboxEmbedding(embeddingInput(p), EMBEDDING_DIMENSIONS))})`,
          })) as unknown as Array<typeof knowledgeChunks.$inferInsert>,
        );
      }
      const done = at + n;
      if (done % 1_000 === 0 || done === target.count)
        log(
          `  ${done.toLocaleString("en-US")}/${target.count.toLocaleString("en-US")} passages (${((performance.now() - t0) / 1000).toFixed(0)} s)`,
        );
    }
    await db.execute(sql`analyze knowledge_chunks, knowledge_documents`);
  } finally {
    await pool.end();
  }
  return (performance.now() - t0) / 1000;
}

/**
 * A 100-page PDF as an office printer makes one from a manual: 44 lines a page, paragraphs of
 * sentences in the seed's words, each page under a running title. About 440 passages.
 */
export function hundredPagePdf(pages = 100): Uint8Array {
  const rnd = random(0xbd7);
  const out: string[][] = [];
  for (let p = 0; p < pages; p++) {
    const lines: string[] = [`Aurora appliances service manual, page ${p + 1}`, ""];
    let line = "";
    while (lines.length < 44) {
      const sentence = fill(SENTENCES[Math.floor(rnd() * SENTENCES.length)] as string, rnd);
      for (const word of sentence.split(" ")) {
        if (`${line} ${word}`.length > 92) {
          lines.push(line);
          line = word;
        } else line = line ? `${line} ${word}` : word;
      }
      if (rnd() < 0.12) {
        lines.push(line, "");
        line = "";
      }
    }
    out.push(lines.slice(0, 44));
  }
  return makePdf(out);
}
