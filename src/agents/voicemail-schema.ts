// The agent's voicemail plan as the API takes it: answering-machine detection on its outbound
// phone calls, and the message it leaves (docs/campaigns.md, "Voicemail").
import { z } from "@hono/zod-openapi";
import { text } from "../lib/fields";

export const VOICEMAIL_DETECTION = ["off", "hang-up", "leave-message"] as const;
/** The longest voicemail message: about a minute of speech, what a voicemail box records at least. */
export const MAX_VOICEMAIL_MESSAGE = 1_000;

export const voicemailPlanSchema = z
  .strictObject({
    detection: z.enum(VOICEMAIL_DETECTION).openapi({
      description:
        "Answering-machine detection on the agent's outbound phone calls: `off`; `hang-up`: on a machine or a fax the call is hung up at once; `leave-message`: on a machine the agent waits for the greeting's end (the beep), says `message`, then hangs up. Either ends the call with reason `voicemail` (docs/campaigns.md, \"Voicemail\").",
      example: "leave-message",
    }),
    message: text({ min: 1, max: MAX_VOICEMAIL_MESSAGE, trim: true }).nullable().default(null).openapi({
      description: "Said to the answering machine after its beep (`leave-message`); `{{name}}` is filled from the call's variables.",
      example: "Hi {{customer}}, this is Acme Dental about your appointment tomorrow. Please call us back. Goodbye.",
    }),
  })
  .superRefine((plan, ctx) => {
    if (plan.detection === "leave-message" && plan.message === null)
      ctx.addIssue({ code: "custom", path: ["message"], message: "is required when detection is leave-message" });
  })
  .openapi("VoicemailPlan", {
    description: "What the agent's outbound phone calls do when a machine answers. Replaced whole on update.",
  });
