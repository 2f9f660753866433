// Validation messages in plain language (src/lib/zod-messages.ts), as the API's error bodies and
// the dashboard's forms show them: no "Too big: expected number to be <=2".
import { createRoute } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createRouter } from "../../../src/context";
import { validate } from "../../../src/dashboard/forms";
import { handleError } from "../../../src/lib/errors";

/** The message of each path's first issue. */
const messages = (schema: z.ZodType, input: unknown) => {
  const result = schema.safeParse(input);
  if (result.success) throw new Error("expected a failure");
  const out: Record<string, string> = {};
  for (const i of result.error.issues) out[i.path.join(".") || "(root)"] ??= i.message;
  return out;
};

describe("plain-language validation messages", () => {
  it("says numbers' bounds, whole numbers and missing values in words", () => {
    const schema = z.object({
      temperature: z.number().min(0).max(2),
      seconds: z.number().int().min(10),
      ratio: z.number().gt(0).lt(1),
      step: z.number().multipleOf(5),
      name: z.string(),
      count: z.number(),
    });
    expect(messages(schema, { temperature: 5, seconds: 2.5, ratio: 1, step: 7, count: Number.NaN })).toEqual({
      temperature: "must be at most 2",
      seconds: "must be a whole number",
      ratio: "must be less than 1",
      step: "must be a multiple of 5",
      name: "is required",
      count: "must be a finite number",
    });
    expect(messages(schema, { temperature: -1, seconds: 3, ratio: 0, step: 5, name: null, count: "7" })).toEqual({
      temperature: "must be at least 0",
      seconds: "must be at least 10",
      ratio: "must be greater than 0",
      name: "must be text, not null",
      count: "must be a number",
    });
  });

  it("says lengths, formats, options and unknown fields in words", () => {
    const schema = z
      .object({
        title: z.string().min(1).max(5),
        code: z.string().length(4),
        tags: z.array(z.string()).min(1).max(2),
        email: z.email(),
        url: z.url(),
        at: z.iso.datetime(),
        id: z.uuid(),
        phone: z.e164(),
        channel: z.enum(["voice", "chat", "widget"]),
        kind: z.literal("agent"),
        slug: z.string().regex(/^[a-z]+$/),
        on: z.boolean(),
      })
      .strict();
    expect(
      messages(schema, {
        title: "",
        code: "12345",
        tags: [],
        email: "x",
        url: "x",
        at: "yesterday",
        id: "x",
        phone: "555",
        channel: "fax",
        kind: "robot",
        slug: "A!",
        on: "yes",
        colour: "red",
      }),
    ).toEqual({
      title: "must not be empty",
      code: "must be exactly 4 characters",
      tags: "must have at least one item",
      email: "must be an email address",
      url: "must be a URL, e.g. https://example.com/path",
      at: "must be a date and time in ISO 8601 with a time zone, e.g. 2025-01-31T09:00:00Z",
      id: "must be a UUID",
      phone: "must be a phone number in E.164 format, e.g. +14155550123",
      channel: "must be one of: voice, chat, widget",
      kind: "must be agent",
      slug: "is not in the expected format",
      on: "must be true or false",
      "(root)": "unknown field: colour",
    });
    expect(messages(schema.partial(), { title: "toolong", tags: ["a", "b", "c"] })).toEqual({
      title: "must be at most 5 characters",
      tags: "must have at most 2 items",
    });
  });

  it("keeps a message a schema spells out itself", () => {
    const schema = z.object({ password: z.string().min(1, "enter your password"), n: z.number().refine((n) => n % 2 === 0) });
    expect(messages(schema, { password: "", n: 3 })).toEqual({ password: "enter your password", n: "is not valid" });
  });

  it("reaches the dashboard's forms and the API's error body", async () => {
    expect(validate(z.object({ temperature: z.number().max(2) }), { temperature: 5 })).toEqual({
      ok: false,
      errors: { temperature: "must be at most 2" },
    });

    const app = createRouter();
    app.onError(handleError);
    const body = z.object({ temperature: z.number().max(2) });
    const route = createRoute({
      method: "post",
      path: "/t",
      request: { body: { content: { "application/json": { schema: body } } } },
      responses: { 200: { description: "ok" } },
    });
    app.openapi(route, (c) => c.json({}, 200));
    const res = await app.request("/t", { method: "POST", headers: { "content-type": "application/json" }, body: '{"temperature":5}' });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      code: "validation_failed",
      message: "Invalid json: temperature: must be at most 2",
      issues: [{ path: "temperature", message: "must be at most 2" }],
    });
  });
});
