// Agents to start from, on the New agent page (?template=…): the fields a receptionist, an
// appointment reminder and a support agent need, which the user then edits like any form. Only
// the form's values: nothing is created until the form is saved.
import type { Values } from "./form";

export interface AgentTemplate {
  key: string;
  label: string;
  description: string;
  values: Values;
}

export const AGENT_TEMPLATES: readonly AgentTemplate[] = [
  {
    key: "receptionist",
    label: "Receptionist",
    description: "Answers the phone for a business: hours, location, takes a message.",
    values: {
      name: "Receptionist",
      systemPrompt:
        "You are the receptionist of {{business}}. Answer questions about opening hours, the address and services briefly and warmly. " +
        "If the caller wants something you cannot do, take their name, number and message, and say someone will call back.",
      firstMessage: "Hello, thank you for calling. How can I help you today?",
      endCallPhrases: "goodbye\nbye",
      successCriteria: "The caller's question was answered or a message was taken",
      extractionFields: JSON.stringify(
        [
          { name: "caller_name", type: "string", description: "The caller's name, if given" },
          { name: "callback_number", type: "string", description: "A number to call back, if given" },
        ],
        null,
        2,
      ),
    },
  },
  {
    key: "appointment-reminder",
    label: "Appointment reminder",
    description: "Calls a customer about an upcoming appointment and records whether they confirm.",
    values: {
      name: "Appointment reminder",
      systemPrompt:
        "You call {{name}} to remind them of their appointment on {{date}} at {{time}}. Ask them to confirm, or to say if they need to reschedule. " +
        "Be brief; do not discuss anything else.",
      firstMessage: "Hello {{name}}, this is a reminder of your appointment on {{date}} at {{time}}. Can you still make it?",
      endCallPhrases: "goodbye\nbye",
      maxDurationSeconds: "180",
      successCriteria: "The customer confirmed or asked to reschedule",
      extractionFields: JSON.stringify(
        [
          {
            name: "outcome",
            type: "enum",
            description: "What the customer said",
            choices: ["confirmed", "reschedule", "cancel", "unclear"],
          },
        ],
        null,
        2,
      ),
    },
  },
  {
    key: "support",
    label: "Customer support",
    description: "Helps customers with questions about their orders, and hands over when it cannot.",
    values: {
      name: "Support",
      systemPrompt:
        "You are a customer support agent for {{business}}. Help with questions about orders, deliveries and returns. " +
        "Ask for the order number when you need it. If you cannot solve the problem, say a colleague will follow up by email.",
      firstMessage: "Hi, you have reached support. What can I help you with?",
      endCallPhrases: "goodbye\nbye",
      successCriteria: "The customer's problem was solved\nThe customer was told what happens next",
      extractionFields: JSON.stringify(
        [
          { name: "order_number", type: "string", description: "The order the customer asked about" },
          { name: "issue", type: "enum", description: "What it was about", choices: ["delivery", "return", "billing", "other"] },
        ],
        null,
        2,
      ),
    },
  },
];

export const templateOf = (key: string | undefined) => AGENT_TEMPLATES.find((t) => t.key === key);
