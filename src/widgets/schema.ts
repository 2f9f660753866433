// Request and response shapes of widgets: the /v1/widgets API (and, later, the dashboard's
// screen, which reuses these schemas and src/widgets/service.ts), and the public widget routes.
import { z } from "@hono/zod-openapi";
import { agentVersionField } from "../agents/versions-schema";
import { NON_EMPTY_PATCH, nonEmptyPatch, text } from "../lib/fields";
import { pageQuerySchema, pageSchema } from "../lib/pagination";
import { normalizeOrigin } from "./origins";

export const WIDGET_MODES = ["chat", "voice", "both"] as const;
export const WIDGET_POSITIONS = ["bottom-right", "bottom-left"] as const;
export const DEFAULT_COLORS = { accent: "#4f46e5", accentText: "#ffffff", background: "#ffffff", text: "#1f2937" } as const;
export const MAX_ALLOWED_ORIGINS = 50;
/** A visitor's message, in Unicode code points. */
export const MAX_MESSAGE_CHARS = 2_000;

const EXAMPLE_ID = "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77";
const EXAMPLE_TOKEN = "wgt_3xQ9vLk2Tz8RbN4mYp7cWd1FhJ6sAe5G";

const HEX = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
/** #abc becomes #aabbcc, lower case. */
const expandHex = (v: string) => (v.length === 4 ? `#${[...v.slice(1)].map((ch) => ch + ch).join("")}` : v).toLowerCase();

const color = (description: string, example: string) =>
  z.string().regex(HEX, "must be a hex colour such as #4f46e5 or #fff").overwrite(expandHex).openapi({ description, example });

const colorFields = {
  accent: () => color("The launcher, the header and the visitor's messages.", DEFAULT_COLORS.accent),
  accentText: () => color("Text and icons on the accent colour.", DEFAULT_COLORS.accentText),
  background: () => color("The panel's background.", DEFAULT_COLORS.background),
  text: () => color("Text on the panel.", DEFAULT_COLORS.text),
};

const colorsPatchSchema = z
  .strictObject({
    accent: colorFields.accent().optional(),
    accentText: colorFields.accentText().optional(),
    background: colorFields.background().optional(),
    text: colorFields.text().optional(),
  })
  .openapi("WidgetColorsInput", { description: "The colours sent replace those of the widget; the others are kept (defaults on create)." });

const originEntry = z
  .string()
  .max(300)
  .transform((value, ctx) => {
    const normalized = normalizeOrigin(value);
    if (!normalized) {
      ctx.addIssue({
        code: "custom",
        message: "must be an origin: http(s)://host[:port] with no path, or https://*.example.com for every subdomain",
      });
      return z.NEVER;
    }
    return normalized;
  });

const allowedOrigins = () =>
  z
    .array(originEntry)
    .min(1, "list at least one origin: the widget answers only pages on these origins")
    .max(MAX_ALLOWED_ORIGINS)
    .transform((list) => [...new Set(list)])
    .openapi({
      type: "array",
      items: { type: "string" },
      description:
        "Pages allowed to use the widget, as origins (`https://www.example.com`, `http://localhost:3000`) or every subdomain of a host (`https://*.example.com`, which does not include `https://example.com` itself). Duplicates are dropped.",
      example: ["https://www.example.com", "https://*.example.com"],
    });

const fields = {
  agentId: () => z.uuid({ message: "agentId must be a UUID" }).openapi({ description: "The agent that answers.", example: EXAMPLE_ID }),
  agentVersion: () =>
    agentVersionField(
      'The agent\'s version its chats and calls run, a draft too; null (the default): the live version. Changing `agentId` without it goes back to null. 404 when the agent has no such version (docs/agents.md, "Versions").',
    ).nullable(),
  name: () =>
    text({ min: 1, max: 100, trim: true, singleLine: true }).openapi({
      description: "For you; visitors never see it.",
      example: "Pricing page",
    }),
  mode: () => z.enum(WIDGET_MODES).openapi({ description: "Chat, voice (a web call), or both.", example: "chat" }),
  title: () =>
    text({ min: 1, max: 80, trim: true, singleLine: true })
      .nullable()
      .openapi({ description: "The panel's title; null: the agent's name.", example: "Ask Acme" }),
  greeting: () =>
    text({ min: 1, max: 1_000, trim: true }).nullable().openapi({
      description:
        "The agent's first message when the panel opens (also its first message in the LLM's history); null: the agent's `firstMessage`, if any.",
      example: "Hi! Questions about pricing? Ask me.",
    }),
  position: () => z.enum(WIDGET_POSITIONS).openapi({ description: "Where the launcher sits on the page.", example: "bottom-right" }),
};

export const createWidgetSchema = z
  .strictObject({
    agentId: fields.agentId(),
    agentVersion: fields.agentVersion().default(null),
    name: fields.name(),
    mode: fields.mode().default("chat"),
    allowedOrigins: allowedOrigins(),
    title: fields.title().default(null),
    greeting: fields.greeting().default(null),
    colors: colorsPatchSchema.default({}),
    position: fields.position().default("bottom-right"),
  })
  .openapi("CreateWidget", {
    example: {
      agentId: EXAMPLE_ID,
      name: "Pricing page",
      mode: "both",
      allowedOrigins: ["https://www.example.com"],
      greeting: "Hi! Questions about pricing? Ask me.",
      colors: { accent: "#0f766e" },
    },
  });

export type CreateWidgetInput = z.infer<typeof createWidgetSchema>;

export const updateWidgetSchema = z
  .strictObject({
    agentId: fields.agentId().optional(),
    agentVersion: fields.agentVersion().optional(),
    name: fields.name().optional(),
    mode: fields.mode().optional(),
    allowedOrigins: allowedOrigins().optional(),
    title: fields.title().optional(),
    greeting: fields.greeting().optional(),
    colors: colorsPatchSchema.optional(),
    position: fields.position().optional(),
  })
  .refine(nonEmptyPatch, NON_EMPTY_PATCH)
  .openapi("UpdateWidget", { example: { allowedOrigins: ["https://www.example.com", "https://shop.example.com"], mode: "chat" } });

export type UpdateWidgetInput = z.infer<typeof updateWidgetSchema>;

export const widgetColorsSchema = z
  .object({ accent: z.string(), accentText: z.string(), background: z.string(), text: z.string() })
  .openapi("WidgetColors", { example: { ...DEFAULT_COLORS } });

export const widgetSchema = z
  .object({
    id: z.uuid().openapi({ example: EXAMPLE_ID }),
    agentId: z.uuid().openapi({ example: EXAMPLE_ID }),
    agentVersion: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'The agent\'s version its chats and calls run; null: the live one (docs/agents.md, "Versions").' }),
    name: z.string(),
    mode: z.enum(WIDGET_MODES),
    allowedOrigins: z.array(z.string()).openapi({ example: ["https://www.example.com"] }),
    title: z.string().nullable(),
    greeting: z.string().nullable(),
    colors: widgetColorsSchema,
    position: z.enum(WIDGET_POSITIONS),
    status: z
      .enum(["active", "revoked"])
      .openapi({ description: "A revoked widget's token stops at once; rotating the token reactivates it." }),
    token: z.string().openapi({
      description:
        "The widget token (public: it goes in the page's HTML). It only reaches this widget's public routes, from the allowed origins.",
      example: EXAMPLE_TOKEN,
    }),
    embedCode: z.string().openapi({
      description: "The one tag to paste into the page.",
      example: `<script src="https://cdn.example.com/widget.js" data-service-token="${EXAMPLE_TOKEN}" async></script>`,
    }),
    tokenRotatedAt: z.iso.datetime().nullable(),
    revokedAt: z.iso.datetime().nullable(),
    createdAt: z.iso.datetime().openapi({ example: "2025-01-15T09:30:00.000Z" }),
    updatedAt: z.iso.datetime().openapi({ example: "2025-01-15T09:30:00.000Z" }),
  })
  .openapi("Widget");

export type WidgetView = z.infer<typeof widgetSchema>;

export const listWidgetsQuerySchema = z.strictObject({
  ...pageQuerySchema.shape,
  agentId: z
    .uuid({ message: "agentId must be a UUID" })
    .optional()
    .openapi({ description: "Only this agent's widgets.", example: EXAMPLE_ID }),
});

export const widgetPageSchema = pageSchema(widgetSchema, "WidgetPage");

// -- the public routes (the widget script in a visitor's browser) --------------------------------

export const visitorIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{8,64}$/, "must be 8 to 64 letters, digits, - or _ (the widget makes one per browser)")
  .openapi({ description: "A random id the widget keeps per browser (localStorage).", example: "v_Qm2k9XrT4bLp0aZs" });

/** The widget's credential in the query: its token, or (the dashboard's preview) its id; the gate checks either. */
export const widgetTokenQuery = z.object({
  token: z
    .string()
    .optional()
    .openapi({
      param: { name: "token", in: "query" },
      description: "The widget token (`data-service-token`). Required unless `preview` is given.",
      example: EXAMPLE_TOKEN,
    }),
  preview: z
    .string()
    .optional()
    .openapi({
      param: { name: "preview", in: "query" },
      description:
        "The dashboard's live preview only: the widget's id instead of its token, accepted with the dashboard's session cookie from the dashboard's own origin (no other origin, no CORS).",
      example: "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77",
    }),
});

export const publicConfigSchema = z
  .object({
    widgetId: z.uuid(),
    mode: z.enum(WIDGET_MODES),
    title: z.string(),
    greeting: z.string().nullable(),
    colors: widgetColorsSchema,
    position: z.enum(WIDGET_POSITIONS),
  })
  .openapi("WidgetConfig");

export const chatMessageSchema = z
  .strictObject({
    visitorId: visitorIdSchema,
    sessionId: z
      .uuid({ message: "sessionId must be a UUID" })
      .nullable()
      .optional()
      .openapi({ description: "The session of earlier messages; omit (or null) on the first message, which starts a session." }),
    message: text({ min: 1, max: MAX_MESSAGE_CHARS, trim: true }).openapi({ example: "How much is the Pro plan?" }),
  })
  .openapi("WidgetChatMessage");

export const chatReplySchema = z
  .object({
    sessionId: z.uuid(),
    started: z.boolean().openapi({ description: "This message started the session (widget.started fired)." }),
    ended: z.boolean().openapi({ description: "The agent ended the chat (its end_call tool): the next message starts a new session." }),
    reply: z.object({ role: z.literal("agent"), text: z.string() }),
  })
  .openapi("WidgetChatReply");

export const visitorBodySchema = z.strictObject({ visitorId: visitorIdSchema }).openapi("WidgetVisitor");

export const publicWebCallSchema = z
  .object({
    callId: z.uuid(),
    url: z.string().openapi({ description: "The one-time WebSocket URL (docs/calls.md, web-call protocol)." }),
    expiresAt: z.iso.datetime(),
    sampleRate: z.literal(16_000),
    encoding: z.literal("pcm_s16le"),
  })
  .openapi("WidgetWebCall");
