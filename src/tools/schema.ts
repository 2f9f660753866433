// The `tools` field of an agent (docs/tools.md): request and response shapes. Names follow what
// Vapi and Retell users know (a `function` tool with a JSON Schema `parameters` and a server
// URL; the built-ins `end_call`, `transfer_call` and `send_dtmf`), in our camelCase. The URL's SSRF check
// needs the configuration and DNS, so it runs in the agents service (src/tools/service.ts).
import { z } from "@hono/zod-openapi";
import { text } from "../lib/fields";
import { parametersProblems } from "./json-schema";

export const TOOL_TYPES = ["function", "end_call", "transfer_call", "send_dtmf"] as const;
/** Names the built-ins take in the model's list: a function tool may not use them. */
export const BUILT_IN_NAMES = ["end_call", "transfer_call", "send_dtmf"] as const;
export const MAX_TOOLS = 20;
export const TOOL_TIMEOUT = { min: 1, max: 30, default: 10 } as const;
export const MAX_DESTINATIONS = 20;

/** OpenAI's rule for function names: 1 to 64 of letters, digits, _ and -. */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const E164 = /^\+[1-9]\d{6,14}$/;

const message = () => text({ min: 1, max: 1_000, trim: true });

const parameters = () =>
  z
    .record(z.string(), z.unknown())
    .superRefine((schema, ctx) => {
      for (const problem of parametersProblems(schema)) ctx.addIssue({ code: "custom", message: problem });
    })
    .openapi({
      description: "A JSON Schema (draft-07) of an object: the arguments the model must write. Checked when saved.",
      example: { type: "object", properties: { orderId: { type: "string", description: "The order number" } }, required: ["orderId"] },
    });

export const functionToolSchema = z
  .strictObject({
    type: z.literal("function"),
    name: z
      .string()
      .regex(TOOL_NAME, "must be 1 to 64 letters, digits, _ or -")
      .refine((n) => !(BUILT_IN_NAMES as readonly string[]).includes(n), "is the name of a built-in tool")
      .openapi({ example: "lookup_order" }),
    description: text({ min: 1, max: 1_000, trim: true }).openapi({
      description: "What the tool does and when to call it: the model reads it.",
      example: "Looks up an order by its number and returns its status.",
    }),
    parameters: parameters().default(() => ({ type: "object", properties: {} })),
    url: z.string().max(2_048).openapi({
      description: "Your server: the call is POSTed here, signed. Same rules as webhook URLs.",
      example: "https://api.example.com/tools/order",
    }),
    timeoutSeconds: z
      .number()
      .int()
      .min(TOOL_TIMEOUT.min)
      .max(TOOL_TIMEOUT.max)
      .default(TOOL_TIMEOUT.default)
      .openapi({ description: "How long the platform waits for your answer.", example: 10 }),
    messages: z
      .strictObject({
        requestStart: message()
          .optional()
          .openapi({ description: "Said when the tool is called, while it runs.", example: "One moment, let me check that order." }),
        requestFailed: message().optional().openapi({
          description: "Said when the tool fails (timeout, error, bad answer).",
          example: "Sorry, I could not reach the order system.",
        }),
      })
      .default(() => ({})),
  })
  .openapi("FunctionTool");

export const endCallToolSchema = z
  .strictObject({
    type: z.literal("end_call"),
    description: text({ min: 1, max: 1_000, trim: true })
      .optional()
      .openapi({ description: "When the model should end the conversation (a default is used otherwise)." }),
    messages: z
      .strictObject({
        requestStart: message()
          .optional()
          .openapi({ description: "Said as it ends, when the model says nothing itself.", example: "Thanks for calling. Goodbye!" }),
      })
      .default(() => ({})),
  })
  .openapi("EndCallTool");

const destinationSchema = z
  .strictObject({
    number: z.string().regex(E164, "must be an E.164 number such as +14155550100").openapi({ example: "+14155550100" }),
    name: z.string().regex(TOOL_NAME, "must be 1 to 64 letters, digits, _ or -").optional().openapi({ example: "billing" }),
    description: text({ min: 1, max: 1_000, trim: true }).optional().openapi({ example: "Billing questions and refunds." }),
    message: message().optional().openapi({ example: "Transferring you to billing now." }),
  })
  .openapi("TransferDestination");

export const transferCallToolSchema = z
  .strictObject({
    type: z.literal("transfer_call"),
    description: text({ min: 1, max: 1_000, trim: true }).optional(),
    destinations: z
      .array(destinationSchema)
      .min(1)
      .max(MAX_DESTINATIONS)
      .superRefine((list, ctx) => {
        const names = new Set<string>();
        list.forEach((d, i) => {
          if (list.length > 1 && !d.name)
            ctx.addIssue({ code: "custom", path: [i, "name"], message: "is required when there are several destinations" });
          if (d.name && names.has(d.name))
            ctx.addIssue({ code: "custom", path: [i, "name"], message: `duplicates another destination's name (${d.name})` });
          if (d.name) names.add(d.name);
        });
      })
      .openapi({ description: "One E.164 number, or several named ones the model chooses from." }),
  })
  .openapi("TransferCallTool", {
    description: "Offered to the model on phone calls: the caller is handed on to a destination with Twilio <Dial> (docs/tools.md).",
  });

export const sendDtmfToolSchema = z
  .strictObject({
    type: z.literal("send_dtmf"),
    description: text({ min: 1, max: 1_000, trim: true })
      .optional()
      .openapi({ description: "When the model should press keys (a default is used otherwise)." }),
  })
  .openapi("SendDtmfTool", {
    description:
      "Offered to the model on phone calls: it presses keys on the phone's keypad (0-9, *, #; w pauses half a second), to find its way through a phone menu (docs/tools.md).",
  });

export const toolSchema = z
  .discriminatedUnion("type", [functionToolSchema, endCallToolSchema, transferCallToolSchema, sendDtmfToolSchema])
  .openapi("Tool");

export const toolsSchema = z
  .array(toolSchema)
  .max(MAX_TOOLS)
  .superRefine((list, ctx) => {
    const names = new Set<string>();
    list.forEach((t, i) => {
      const name = t.type === "function" ? t.name : t.type;
      if (names.has(name))
        ctx.addIssue({
          code: "custom",
          path: [i, t.type === "function" ? "name" : "type"],
          message: t.type === "function" ? `duplicates another tool's name (${name})` : `${name} may be given once`,
        });
      names.add(name);
    });
  })
  .openapi({
    description: `At most ${MAX_TOOLS}: function tools of yours and the built-ins end_call, transfer_call and send_dtmf (docs/tools.md).`,
  });

export type ToolInput = z.infer<typeof toolSchema>;
