// The messaging providers' webhooks, one address per channel (docs/messaging.md), one file per
// operation. No API key; each delivery proves itself: Telegram's X-Telegram-Bot-Api-Secret-Token
// (the secret we gave setWebhook; telegram-update.ts), WhatsApp's X-Hub-Signature-256 over the raw
// body (the app secret; whatsapp-notification.ts), and Meta's verification handshake (the verify
// token; whatsapp-verify.ts). A delivery that fails its check is refused with 401 and nothing is
// stored; an authenticated one must be sent as application/json (415 otherwise). Its content is
// never refused: what does not match the provider's format is acknowledged and dropped, or kept as
// unsupported (src/messaging/parsed.ts), so no delivery is retried into a stall. Accepted messages
// are stored and acknowledged at once; the replies are written after the response
// (src/messaging/inbound.ts; shared.ts's accept).
import { createRouter } from "../../context";
import { registerTelegramUpdate } from "./telegram-update";
import { registerWhatsAppNotification } from "./whatsapp-notification";
import { registerWhatsAppVerify } from "./whatsapp-verify";

/** The messaging surface, mounted at /channels (src/app.ts). */
export function channelWebhookRoutes() {
  const app = createRouter();
  registerTelegramUpdate(app);
  registerWhatsAppVerify(app);
  registerWhatsAppNotification(app);
  return app;
}
