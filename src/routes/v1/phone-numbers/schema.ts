// The phone numbers' request and response shapes (docs/calls.md, "Caller ids").
import { z } from "@hono/zod-openapi";
import { NON_EMPTY_PATCH, nonEmptyPatch, text } from "../../../lib/fields";
import { pageSchema } from "../../../lib/pagination";
import { phoneNumber } from "../calls/schema";

export const phoneNumberSchema = z
  .object({
    id: z.uuid(),
    number: z.string().openapi({ example: "+14155550100" }),
    provider: z.literal("twilio"),
    label: z.string().nullable(),
    agentId: z
      .uuid()
      .nullable()
      .openapi({ description: "The agent that answers calls to this number; null: calls to it are turned away." }),
    createdAt: z.iso.datetime(),
  })
  .openapi("PhoneNumber");

const phoneLabel = () => text({ min: 1, max: 100, trim: true, singleLine: true }).nullable();
const answeringAgent = () =>
  z.uuid({ message: "agentId must be a UUID" }).nullable().openapi({
    description:
      "The workspace's agent that answers incoming calls to this number (the number must be one the platform's Twilio account bought); null: none.",
  });

export const createPhoneNumberSchema = z
  .strictObject({
    number: phoneNumber("number"),
    label: phoneLabel().default(null),
    agentId: answeringAgent().default(null),
  })
  .openapi("CreatePhoneNumber", { example: { number: "+14155550100", label: "Main line" } });

export const updatePhoneNumberSchema = z
  .strictObject({ label: phoneLabel().optional(), agentId: answeringAgent().optional() })
  .refine(nonEmptyPatch, NON_EMPTY_PATCH)
  .openapi("UpdatePhoneNumber", { example: { agentId: "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77" } });

export const phoneNumberPageSchema = pageSchema(phoneNumberSchema, "PhoneNumberPage");
