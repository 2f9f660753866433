// Request and response shapes of calls, web calls and phone numbers (docs/calls.md).
import { z } from "@hono/zod-openapi";
import { agentVersionField } from "../../../agents/versions-schema";
import { CALL_STATUSES, ENDED_REASON_VALUES, FAULT_CATEGORIES } from "../../../calls/states";
import { toolTurnSchema } from "../../../chats/schema";
import { ANSWERED_BY, CALL_DIRECTIONS } from "../../../db/schema";
import { metadataSchema, text } from "../../../lib/fields";
import { pageQuerySchema, pageSchema } from "../../../lib/pagination";
import { analysisSkipped, callTransfer, campaignId, campaignRecipientId, turnLatency } from "../../../webhooks/payload-schema";

export const E164 = /^\+[1-9]\d{6,14}$/;
const EXAMPLE_ID = "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77";

export const phoneNumber = (field: string) =>
  z
    .string({ message: `${field} must be a string` })
    .regex(E164, `${field} must be an E.164 phone number: + then country code and number, digits only (e.g. +14155550123)`)
    .openapi({ example: "+14155550123" });

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

export const variablesSchema = () =>
  z
    .record(z.string().regex(VARIABLE_NAME, "variable names are identifiers (letters, digits, _; at most 64)"), text({ max: 2_000 }))
    .refine((v) => Object.keys(v).length <= 50, "at most 50 variables")
    .openapi({
      description: "Replaces `{{name}}` in the agent's system prompt and first message for this call.",
      example: { customer_name: "Ada", appointment: "Tuesday 10:00" },
    });

const callVersion = () =>
  agentVersionField(
    'The agent\'s version the call runs, a draft too (how a draft is tried on a real call); left out, the live version. 404 when the agent has no such version (docs/agents.md, "Versions").',
  );

export const createCallSchema = z
  .strictObject({
    phoneNumber: phoneNumber("phoneNumber"),
    fromNumber: phoneNumber("fromNumber")
      .optional()
      .openapi({ description: "Caller id: one of the workspace's phone numbers or the platform's. Default: the first available." }),
    phoneNumberId: z.uuid({ message: "phoneNumberId must be a UUID" }).optional().openapi({ description: "Caller id by its id." }),
    variables: variablesSchema().optional(),
    metadata: metadataSchema().optional(),
    agentVersion: callVersion().optional(),
  })
  .refine((b) => !(b.fromNumber && b.phoneNumberId), { message: "send fromNumber or phoneNumberId, not both", path: ["phoneNumberId"] })
  .openapi("CreateCall", { example: { phoneNumber: "+14155550123", variables: { customer_name: "Ada" }, metadata: { ticket: "T-77" } } });

export const createWebCallSchema = z
  .strictObject({ variables: variablesSchema().optional(), metadata: metadataSchema().optional(), agentVersion: callVersion().optional() })
  .openapi("CreateWebCall", { example: { variables: { customer_name: "Ada" }, agentVersion: 3 } });

const turnSchema = z.object({
  role: z.enum(["agent", "user", "tool"]).openapi({ description: "`tool`: a call of one of the agent's tools (docs/tools.md)." }),
  text: z.string(),
  startMs: z.number().openapi({ description: "Milliseconds from the moment the call connected." }),
  endMs: z.number(),
  interrupted: z.boolean().optional().openapi({ description: "The caller spoke over the agent; `text` is what it meant to say." }),
  dtmf: z.string().optional().openapi({
    description:
      'Caller turns of keys pressed on the phone\'s keypad: the keys in order; `text` reads "[keypad] 1 2 #" (docs/calls.md, "Keypad (DTMF)").',
    example: "12#",
  }),
  tool: toolTurnSchema.optional().openapi({ description: "Tool turns: the call, its outcome and latency (docs/tools.md)." }),
  latency: turnLatency.optional().openapi({ description: 'Agent replies: where the caller\'s wait went (docs/calls.md, "Latency").' }),
});

const usageLine = z.object({ quantity: z.number(), unit: z.string(), credits: z.number() });

export const callSchema = z
  .object({
    id: z.uuid().openapi({ example: EXAMPLE_ID }),
    type: z.enum(["phone", "web"]),
    status: z.enum(CALL_STATUSES),
    direction: z.enum(CALL_DIRECTIONS).openapi({
      description:
        "`outbound` and `inbound`: a phone call, dialled by us or ringing one of the workspace's numbers; `web`: an in-browser call, which has no phone leg (docs/calls.md, Direction).",
    }),
    endedReason: z.enum(ENDED_REASON_VALUES).nullable(),
    endedReasonCategory: z.enum(FAULT_CATEGORIES).nullable(),
    durationSeconds: z.number().nullable(),
    fromNumber: z.string().nullable(),
    toNumber: z.string().nullable(),
    agentId: z.uuid().nullable(),
    agentName: z.string(),
    agentVersion: z.number().int().nullable().openapi({
      description: 'The agent\'s version the call ran with (docs/agents.md, "Versions"); null for calls before versions.',
      example: 2,
    }),
    startedAt: z.iso.datetime().nullable(),
    endedAt: z.iso.datetime().nullable(),
    createdAt: z.iso.datetime(),
    transcript: z.object({ fullText: z.string(), turns: z.array(turnSchema) }),
    toolCallCount: z.number().int().openapi({ description: "Tool calls the agent made during the call (docs/tools.md)." }),
    transfer: callTransfer.nullable(),
    answeredBy: z.enum(ANSWERED_BY).nullable().openapi({
      description:
        "Who answered an outbound phone call, as answering-machine detection heard it (Twilio's AnsweredBy: `human`, `machine_start`, `machine_end_beep`, `machine_end_silence`, `machine_end_other`, `fax`, `unknown`); null when the agent's voicemail detection was off or no verdict came (docs/campaigns.md, \"Voicemail\").",
      example: "human",
    }),
    recording: z.object({ url: z.string(), durationSeconds: z.number() }).nullable(),
    analysis: z
      .object({
        summary: z.string(),
        sentiment: z.enum(["positive", "neutral", "negative"]),
        topics: z.array(z.string()),
        actionItems: z.array(z.string()),
      })
      .nullable(),
    report: z
      .object({
        successScore: z.number(),
        criteriaResults: z.array(z.object({ criterion: z.string(), passed: z.boolean(), reason: z.string().optional() })),
        extractedData: z.record(z.string(), z.unknown()),
      })
      .nullable(),
    analysisError: z.string().nullable(),
    analysisSkipped,
    campaignId,
    campaignRecipientId,
    cost: z.object({
      credits: z.number(),
      stt: usageLine,
      llm: usageLine.extend({ promptTokens: z.number(), completionTokens: z.number() }),
      tts: usageLine,
      knowledge: usageLine.openapi({
        description: "Knowledge retrieval: the caller's words embedded to search the agent's knowledge bases (tokens).",
      }),
    }),
    latency: z
      .object({
        turns: z.number().int(),
        voiceToVoiceMsP50: z.number(),
        platformMsP50: z.number(),
      })
      .nullable()
      .openapi({ description: "Medians over the agent's replies (docs/calls.md: what is measured)." }),
    variables: z.record(z.string(), z.string()),
    metadata: z.record(z.string(), z.unknown()),
  })
  .openapi("Call");

export const webCallSchema = z
  .object({
    call: callSchema,
    webCall: z.object({
      url: z.string().openapi({ description: "Open a WebSocket here (the token is in the URL; it works once)." }),
      token: z.string(),
      expiresAt: z.iso.datetime(),
      sampleRate: z.literal(16_000),
      encoding: z.literal("pcm_s16le"),
    }),
  })
  .openapi("WebCall");

export const listCallsQuerySchema = pageQuerySchema.extend({
  agentId: z.uuid({ message: "agentId must be a UUID" }).optional(),
  status: z.enum(CALL_STATUSES).optional(),
  direction: z
    .enum(CALL_DIRECTIONS)
    .optional()
    .openapi({ description: "`inbound` and `outbound` list phone calls only; `web` lists in-browser calls (the same as `type=web`)." }),
  type: z.enum(["phone", "web"]).optional(),
});

export const callPageSchema = pageSchema(callSchema, "CallPage");
