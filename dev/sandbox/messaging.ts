// What the Telegram and WhatsApp sandboxes share: reading a request's body in the forms the two APIs
// accept, the scripted end user's voice (real speech from the provider sandbox, so its transcription
// gives the words back), telling audio containers apart, one webhook POST with the failure named the way
// the provider names it, and waiting for something to appear in a conversation. See docs/sandbox.md.
import { randomBytes } from "node:crypto";
import { realpathSync } from "node:fs";
import { type IncomingMessage, type ServerResponse, STATUS_CODES } from "node:http";
import { fileURLToPath } from "node:url";

export class BodyTooLarge extends Error {}
export class MalformedBody extends Error {}

export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      req.resume(); // drain the rest so the answer can be written
      throw new BodyTooLarge(`request body over ${limit} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

export interface UploadedFile {
  name: string;
  type: string;
  data: Buffer;
}

export interface RequestBody {
  /** Query-string, form and JSON fields; form values are strings, JSON values keep their type. */
  fields: Record<string, unknown>;
  files: Record<string, UploadedFile>;
  kind: "none" | "json" | "form" | "multipart";
}

/** Parses a body as JSON, application/x-www-form-urlencoded or multipart/form-data, merged over the query string. */
export async function parseRequestBody(contentType: string, raw: Buffer, query: URLSearchParams): Promise<RequestBody> {
  const fields: Record<string, unknown> = Object.fromEntries(query);
  const files: Record<string, UploadedFile> = {};
  const type = contentType.split(";")[0]?.trim().toLowerCase() ?? "";
  if (raw.length === 0) return { fields, files, kind: "none" };
  if (type === "application/json") {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw.toString("utf8"));
    } catch {
      throw new MalformedBody("the body is not valid JSON");
    }
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new MalformedBody("the JSON body must be an object");
    return { fields: { ...fields, ...(parsed as Record<string, unknown>) }, files, kind: "json" };
  }
  if (type === "multipart/form-data") {
    let form: FormData;
    try {
      form = await new Request("http://sandbox/", { method: "POST", headers: { "content-type": contentType }, body: raw }).formData();
    } catch {
      throw new MalformedBody("the body is not valid multipart/form-data");
    }
    for (const [name, value] of form as unknown as Iterable<[string, string | Blob]>) {
      if (typeof value === "string") fields[name] = value;
      else
        files[name] = {
          name: (value as Blob & { name?: string }).name ?? name,
          type: value.type,
          data: Buffer.from(await value.arrayBuffer()),
        };
    }
    return { fields, files, kind: "multipart" };
  }
  // Telegram and Graph both read a body without a known type as a form.
  for (const [k, v] of new URLSearchParams(raw.toString("utf8"))) fields[k] = v;
  return { fields, files, kind: "form" };
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}, text?: string): void {
  if (res.headersSent || res.destroyed) return;
  const buf = Buffer.from(text ?? JSON.stringify(body));
  res.writeHead(status, { "content-type": "application/json", "content-length": String(buf.length), ...headers }).end(buf);
}

/** Random characters from an alphabet (base62 by default). */
export function randomChars(n: number, alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"): string {
  const bytes = randomBytes(n);
  let out = "";
  for (let i = 0; i < n; i++) out += alphabet[(bytes[i] as number) % alphabet.length];
  return out;
}

/** A random decimal number of exactly `digits` digits (no leading zero), as a string. */
export function randomDigits(digits: number): string {
  return String(1 + ((randomBytes(1)[0] as number) % 9)) + randomChars(digits - 1, "0123456789");
}

// ---------------------------------------------------------------------------------------------
// The scripted user's voice

export interface ProviderRef {
  /** The provider's base URL ending in /v1 (the provider sandbox's `url`). */
  url: string;
  apiKey: string;
}

/**
 * Speaks the user's words through the provider's `POST /audio/speech` as a WAV. The provider sandbox
 * marks its WAVs with the text it spoke, so its transcription gives the words back exactly.
 */
export class VoiceNotes {
  private cache = new Map<string, Promise<Buffer>>();

  constructor(
    private readonly provider: ProviderRef | undefined,
    readonly voice: string,
  ) {}

  get available(): boolean {
    return this.provider !== undefined;
  }

  wav(text: string): Promise<Buffer> {
    let hit = this.cache.get(text);
    if (!hit) {
      hit = this.synthesize(text);
      hit.catch(() => this.cache.delete(text));
      this.cache.set(text, hit);
    }
    return hit;
  }

  private async synthesize(text: string): Promise<Buffer> {
    if (!this.provider) throw new Error("voice notes need a provider (the sandbox was started without one)");
    const res = await fetch(`${this.provider.url}/audio/speech`, {
      method: "POST",
      headers: { authorization: `Bearer ${this.provider.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "tts-1", voice: this.voice, input: text, response_format: "wav" }),
      signal: AbortSignal.timeout(30_000),
    });
    if (!res.ok) throw new Error(`speech for the voice note failed: ${res.status} ${(await res.text()).slice(0, 200)}`);
    return Buffer.from(await res.arrayBuffer());
  }
}

/** Duration of a RIFF/WAVE file from its fmt and data chunks, or undefined. */
export function wavDurationSeconds(buf: Buffer): number | undefined {
  if (buf.length < 12 || buf.toString("latin1", 0, 4) !== "RIFF" || buf.toString("latin1", 8, 12) !== "WAVE") return undefined;
  let byteRate: number | undefined;
  for (let p = 12; p + 8 <= buf.length; ) {
    const id = buf.toString("latin1", p, p + 4);
    const size = buf.readUInt32LE(p + 4);
    if (id === "fmt " && p + 20 <= buf.length) byteRate = buf.readUInt32LE(p + 16);
    if (id === "data" && byteRate) return Math.min(size, buf.length - p - 8) / byteRate;
    p += 8 + size + (size & 1);
  }
  return undefined;
}

/** Duration of an Ogg file from its last page's granule position (Opus counts at 48 kHz), or undefined. */
export function oggDurationSeconds(buf: Buffer): number | undefined {
  const last = buf.lastIndexOf("OggS");
  if (last < 0 || last + 14 > buf.length) return undefined;
  const granule = Number(buf.readBigUInt64LE(last + 6));
  return granule > 0 ? granule / 48_000 : undefined;
}

export interface AudioKind {
  /** The container's media type as the provider reports it. */
  mime: string;
  ext: string;
}

/** Tells the audio containers the two APIs care about apart by their first bytes. */
export function sniffAudio(buf: Buffer): AudioKind | undefined {
  if (buf.length < 12) return undefined;
  if (buf.toString("latin1", 0, 4) === "OggS") return { mime: "audio/ogg", ext: "oga" };
  if (buf.toString("latin1", 0, 4) === "RIFF" && buf.toString("latin1", 8, 12) === "WAVE") return { mime: "audio/wav", ext: "wav" };
  if (buf.toString("latin1", 0, 3) === "ID3") return { mime: "audio/mpeg", ext: "mp3" };
  if (buf.toString("latin1", 0, 5) === "#!AMR") return { mime: "audio/amr", ext: "amr" };
  if (buf.toString("latin1", 4, 8) === "ftyp") return { mime: "audio/mp4", ext: "m4a" };
  const b0 = buf[0] as number;
  const b1 = buf[1] as number;
  if (b0 === 0xff && (b1 & 0xf6) === 0xf0) return { mime: "audio/aac", ext: "aac" }; // ADTS
  if (b0 === 0xff && (b1 & 0xe0) === 0xe0) return { mime: "audio/mpeg", ext: "mp3" }; // an MPEG audio frame
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Webhooks

export interface PostResult {
  status?: number;
  /** The failure in the provider's words ("Wrong response from the webhook: 500 Internal Server Error", "Connection refused"…). */
  error?: string;
  /** The answer's Retry-After, in seconds. */
  retryAfter?: number;
  ms: number;
}

/** One POST of a webhook body; never throws. The answer's body is read and dropped. */
export async function postWebhook(
  url: string,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
  stop: AbortSignal,
): Promise<PostResult> {
  const started = performance.now();
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body,
      redirect: "manual",
      signal: AbortSignal.any([AbortSignal.timeout(timeoutMs), stop]),
    });
    await res.arrayBuffer().catch(() => undefined);
    const retryAfter = Number(res.headers.get("retry-after"));
    const ok = res.status >= 200 && res.status <= 299;
    return {
      status: res.status,
      ...(!ok && { error: `Wrong response from the webhook: ${res.status} ${STATUS_CODES[res.status] ?? ""}`.trim() }),
      ...(Number.isFinite(retryAfter) && retryAfter > 0 && { retryAfter }),
      ms: performance.now() - started,
    };
  } catch (err) {
    return { error: describeFailure(err), ms: performance.now() - started };
  }
}

function describeFailure(err: unknown): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === "TimeoutError" || e?.name === "AbortError") return "Read timeout expired";
  const code = e?.cause?.code;
  if (code === "ECONNREFUSED") return "Connection refused";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return "Failed to resolve host: Name or service not known";
  if (code === "ECONNRESET" || code === "UND_ERR_SOCKET") return "Connection reset by peer";
  return e?.cause?.message ?? e?.message ?? String(err);
}

/** Resolves when `find` returns something, checking each time `wake()` is called (and every 50 ms). */
export class Waiters {
  private waiting = new Set<() => void>();

  wake(): void {
    for (const w of this.waiting) w();
  }

  async until<T>(find: () => T | undefined, timeoutMs: number, stop: AbortSignal): Promise<T | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = find();
      if (found !== undefined) return found;
      const left = deadline - Date.now();
      if (left <= 0 || stop.aborted) return undefined;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(t);
          this.waiting.delete(done);
          resolve();
        };
        const t = setTimeout(done, Math.min(left, 50));
        this.waiting.add(done);
      });
    }
  }
}

/** Whether this module is the process's entry (`tsx dev/sandbox/<name>.ts`). */
export function isMain(importMetaUrl: string): boolean {
  try {
    return process.argv[1] !== undefined && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(importMetaUrl));
  } catch {
    return false;
  }
}

/**
 * A messaging sandbox run on its own (`tsx dev/sandbox/telegram.ts`): with the provider sandbox
 * at PROVIDER_URL, or one started here for the users' voice notes; prints its banner and stops
 * both on SIGINT/SIGTERM.
 */
export async function runSandboxCli<S extends { stop(): Promise<void> }>(
  start: (provider: ProviderRef) => Promise<S>,
  banner: (sandbox: S, voiceFrom: string) => string[],
): Promise<void> {
  const { startProviderSandbox } = await import("./openai");
  const own = process.env.PROVIDER_URL ? undefined : await startProviderSandbox();
  const provider = own
    ? { url: own.url, apiKey: own.apiKey }
    : { url: process.env.PROVIDER_URL as string, apiKey: process.env.PROVIDER_API_KEY ?? "" };
  const sandbox = await start(provider);
  const voiceFrom = own ? `a provider sandbox started here (${own.url})` : provider.url;
  process.stdout.write([...banner(sandbox, voiceFrom), ""].join("\n"));
  const shutdown = () => {
    void sandbox
      .stop()
      .then(() => own?.stop())
      .then(() => process.exit(0));
  };
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
}

/** A bounded integer from a control-API query value, or the default. */
export function intParam(value: string | null, fallback: number, min: number, max: number): number {
  const n = value === null || value === "" ? fallback : Number(value);
  return Number.isFinite(n) ? Math.min(max, Math.max(min, Math.trunc(n))) : fallback;
}
