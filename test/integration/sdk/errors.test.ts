// Each SDK error class, produced by a real answer of the worker (or by no answer at all): the
// class for the status family, and status, code, message, requestId and headers read from the
// one error body (docs/errors.md).
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, startWorker } from "../../../dev/stack";
import {
  APIConnectionError,
  APIError,
  APITimeoutError,
  APIUserAbortError,
  AuthenticationError,
  ConflictError,
  InsufficientCreditsError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  PlatformError,
  RateLimitError,
  ValidationError,
} from "../../../packages/sdk/src/index";
import { organizations } from "../../../src/db/schema";
import { type Gateway, startGateway } from "../../support/gateway";
import { addMemberTo, clearOfWindowEdge, createWorkspace, signIn, stack, testDb } from "../../support/harness";
import { PERSONA, sdkFor } from "../../support/sdk";

const SYSTEM_VOICE = "00000000-0000-7000-8000-000000000001";
const MISSING = "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77";

/** The error a promise rejects with (the test fails when it resolves). */
async function failure(promise: PromiseLike<unknown>): Promise<APIError> {
  const err = await Promise.resolve(promise).then(
    (value) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value)?.slice(0, 200)}`);
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(APIError);
  return err as APIError;
}

/** What every APIError carries from a real answer. */
function expectFromBody(err: APIError, status: number, code: string) {
  expect(err).toBeInstanceOf(PlatformError);
  expect(err.status).toBe(status);
  expect(err.code).toBe(code);
  expect(err.message.length).toBeGreaterThan(5);
  expect(err.requestId).toMatch(/^[0-9a-f-]{36}$/);
  expect(err.headers.get("x-request-id")).toBe(err.requestId);
  expect(err.headers.get("content-type")).toContain("application/json");
}

let limited: Awaited<ReturnType<typeof startWorker>>;
let hanging: Gateway;

beforeAll(async () => {
  limited = await startWorker({ ...stack().vars, RATE_LIMIT_REQUESTS: "1", RATE_LIMIT_WINDOW: "60 s" });
  hanging = await startGateway(stack().baseUrl, () => ({ kind: "forward-then-hold" }));
}, 120_000);

afterAll(async () => {
  await Promise.all([limited?.stop(), hanging?.stop()]);
});

describe("SDK errors from real answers", () => {
  it("AuthenticationError (401) for an unknown key", async () => {
    const err = await failure(sdkFor({ apiKey: "sk-live-not-a-real-key" }).me.retrieve());
    expect(err).toBeInstanceOf(AuthenticationError);
    expectFromBody(err, 401, "unauthorized");
  });

  it("PermissionDeniedError (403) for a member's session on an admin operation", async () => {
    const ws = await createWorkspace();
    const member = await addMemberTo(ws, "member");
    const { token } = await signIn(member.email, member.password);
    const client = sdkFor({ apiKey: token }, { defaultHeaders: { "x-organization-id": ws.organizationId } });
    expect((await client.me.retrieve()).role).toBe("member");
    const err = await failure(client.webhookEndpoints.list());
    expect(err).toBeInstanceOf(PermissionDeniedError);
    expectFromBody(err, 403, "forbidden");
  });

  it("NotFoundError (404) for an id the workspace does not have", async () => {
    const err = await failure(sdkFor(await createWorkspace()).agents.retrieve(MISSING));
    expect(err).toBeInstanceOf(NotFoundError);
    expectFromBody(err, 404, "not_found");
  });

  it("ConflictError (409) for a system voice's update, and for an Idempotency-Key reused with another body", async () => {
    const client = sdkFor(await createWorkspace());
    const readOnly = await failure(client.voices.update(SYSTEM_VOICE, { name: "Mine" }));
    expect(readOnly).toBeInstanceOf(ConflictError);
    expectFromBody(readOnly, 409, "read_only");

    const agent = await client.agents.create({ name: "Caller", personaId: PERSONA, llmModel: "sandbox-chat" });
    const key = `order-${crypto.randomUUID()}`;
    await client.calls.create(agent.id, { phoneNumber: "+12025550102" }, { idempotencyKey: key });
    const reused = await failure(client.calls.create(agent.id, { phoneNumber: "+12025550103" }, { idempotencyKey: key }));
    expect(reused).toBeInstanceOf(ConflictError);
    expectFromBody(reused, 409, "idempotency_conflict");
  });

  it("ValidationError (400) with the field issues, and for a body over the size cap (413)", async () => {
    const client = sdkFor(await createWorkspace());
    // @ts-expect-error: the types refuse this body too; the server is the judge here
    const invalid = await failure(client.agents.create({ name: "" }));
    expect(invalid).toBeInstanceOf(ValidationError);
    expectFromBody(invalid, 400, "validation_failed");
    expect(invalid.issues?.map((i) => i.path)).toEqual(expect.arrayContaining(["name", "personaId"]));

    const tooLarge = await failure(
      client.voices.create({
        name: "Big",
        provider: "sandbox",
        providerVoiceId: "echo",
        language: "en",
        description: "x".repeat(300 * 1024),
      }),
    );
    expect(tooLarge).toBeInstanceOf(ValidationError);
    expectFromBody(tooLarge, 413, "payload_too_large");

    const badCursor = await failure(client.agents.list({ cursor: "not-a-cursor" }));
    expect(badCursor).toBeInstanceOf(ValidationError);
    expectFromBody(badCursor, 400, "bad_request");
  });

  it("InsufficientCreditsError (402) when the workspace has no credits", async () => {
    const ws = await createWorkspace();
    await testDb().update(organizations).set({ creditsMicro: 0 }).where(eq(organizations.id, ws.organizationId));
    const err = await failure(sdkFor(ws).chat.create({ model: "sandbox-chat", messages: [{ role: "user", content: "hi" }] }));
    expect(err).toBeInstanceOf(InsufficientCreditsError);
    expectFromBody(err, 402, "insufficient_credits");
  });

  it("RateLimitError (429) with retryAfter from Retry-After, when retries are off", async () => {
    const ws = await createWorkspace();
    const client = sdkFor(ws, { baseURL: limited.baseUrl, maxRetries: 0 });
    await clearOfWindowEdge();
    await client.me.retrieve();
    const err = await failure(client.me.retrieve());
    expect(err).toBeInstanceOf(RateLimitError);
    expectFromBody(err, 429, "rate_limited");
    const retryAfter = (err as RateLimitError).retryAfter;
    expect(retryAfter).toBe(Number(err.headers.get("retry-after")));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(client.attempts).toHaveLength(2);
  });

  it("InternalServerError (5xx) when the model provider keeps failing", async () => {
    const client = sdkFor(await createWorkspace(), { maxRetries: 0 });
    const err = await failure(client.chat.create({ model: "fault-500", messages: [{ role: "user", content: "hi" }] }));
    expect(err).toBeInstanceOf(InternalServerError);
    expectFromBody(err, 502, "provider_error");
  });

  it("APIConnectionError when nothing answers, APITimeoutError when the answer does not come, APIUserAbortError on the caller's abort", async () => {
    const ws = await createWorkspace();
    const closed = `http://127.0.0.1:${await freePort()}`;
    const refused = await sdkFor(ws, { baseURL: closed, maxRetries: 0 })
      .me.retrieve()
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(APIConnectionError);
    expect(refused).not.toBeInstanceOf(APITimeoutError);
    expect(refused).not.toBeInstanceOf(APIError);

    const started = Date.now();
    const late = await sdkFor(ws, { baseURL: hanging.url, maxRetries: 0, timeout: 1_000 })
      .me.retrieve()
      .catch((e: unknown) => e);
    expect(late).toBeInstanceOf(APITimeoutError);
    expect(late).toBeInstanceOf(APIConnectionError);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    expect(hanging.exchanges.at(-1)?.upstream?.status).toBe(200); // the worker did answer; it never arrived

    const controller = new AbortController();
    const pending = sdkFor(ws, { baseURL: hanging.url, maxRetries: 3 }).me.retrieve({ signal: controller.signal });
    setTimeout(() => controller.abort(), 200);
    await expect(pending).rejects.toBeInstanceOf(APIUserAbortError);
  });
});
