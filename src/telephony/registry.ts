// Which carrier places calls: configuration, not code. Twilio's API at TWILIO_API_BASE_URL
// (api.twilio.com in production, the telephony sandbox locally).
import type { AppConfig } from "../env";
import { ApiError } from "../lib/errors";
import { Twilio } from "./twilio";
import type { TelephonyProvider } from "./types";

/** Twilio's own API. */
export const TWILIO_API = "https://api.twilio.com";

/** The carrier as the dashboard tells it: Twilio, or a stand-in at any other base URL (the local telephony sandbox). */
export const carrierOf = (config: Pick<AppConfig, "TWILIO_API_BASE_URL">): { sandbox: boolean; url: string } => ({
  sandbox: new URL(config.TWILIO_API_BASE_URL).origin !== TWILIO_API,
  url: config.TWILIO_API_BASE_URL,
});

export function telephonyProvider(config: AppConfig): TelephonyProvider {
  if (!config.TWILIO_ACCOUNT_SID || !config.TWILIO_AUTH_TOKEN) {
    throw new ApiError(
      "telephony_unavailable",
      "Phone calls are not configured on this deployment (set TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN). Web calls still work.",
    );
  }
  return new Twilio(config.TWILIO_API_BASE_URL, config.TWILIO_ACCOUNT_SID, config.TWILIO_AUTH_TOKEN, {
    timeoutMs: config.PROVIDER_TIMEOUT_MS,
    retries: config.PROVIDER_RETRIES,
  });
}
