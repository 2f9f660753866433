// Phone numbers (caller ids): the service behind /v1/phone-numbers and the caller id of a new
// call, which numbers a workspace may place calls from, checked in one place for the API and
// the dashboard (docs/calls.md, "Caller ids"). A workspace may call from
// - one of the platform's shared numbers (TWILIO_FROM_NUMBERS: configuration, every workspace), or
// - a number it added (POST /v1/phone-numbers) that is still a number of the platform's Twilio
//   account or a caller id verified there (IncomingPhoneNumbers / OutgoingCallerIds).
// A number belongs to one workspace (a unique index): adding one another workspace has is refused.
// Twilio is asked when a number is added and again at every call, not cached: a call already
// costs a request to Twilio, and a number released from the account stops working at once.
// Each operation takes one `{ ctx, input }` (src/services.ts): a `Ctx<"db" | "organizationId">`,
// plus `"config"` where Twilio is asked and `"publicOrigin"` where a number is pointed at us.
import { findAgent } from "../agents/service";
import { isForeignKeyViolation } from "../db/errors";
import type { PhoneNumber } from "../db/schema";
import type { AppConfig } from "../env";
import { ApiError } from "../lib/errors";
import type { Page, PageParams } from "../lib/pagination";
import { ProviderError } from "../providers/http";
import type { Ctx, Op } from "../services";
import { telephonyProvider } from "../telephony/registry";
import type { CallerIdSource } from "../telephony/types";
import { TWILIO_VOICE_PATH } from "./addresses";
import {
  deletePhoneNumber,
  findNumberHolder,
  findPhoneNumber,
  insertPhoneNumber,
  listCallerIds,
  pageOfPhoneNumbers,
  updatePhoneNumberRow,
} from "./queries/phone-numbers";

/** What adding or changing a number needs: the public origin is where a number assigned to an agent sends its calls (our voice webhook). */
type NumberCtx = Ctx<"db" | "organizationId" | "config" | "publicOrigin">;

const AGENT_MESSAGE = "no agent with this id in this workspace";
const unknownAgent = () =>
  new ApiError("validation_failed", `Invalid json: agentId: ${AGENT_MESSAGE}`, { issues: [{ path: "agentId", message: AGENT_MESSAGE }] });

/** Another workspace's agent answers like a missing one. */
async function requireAgent(ctx: Ctx<"db" | "organizationId">, agentId: string): Promise<void> {
  if (!(await findAgent({ ctx, input: { id: agentId } }))) throw unknownAgent();
}

/** The agent was deleted between the check and the write: the same 400 as if it never existed. */
async function whileAgentExists<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (err) {
    if (isForeignKeyViolation(err)) throw unknownAgent();
    throw err;
  }
}

/**
 * Points the number's incoming calls at our voice webhook (Twilio: the number's VoiceUrl), so the
 * agent assigned to it answers them. A verified caller id is not the account's number: it cannot
 * receive calls here.
 */
async function routeIncomingCalls(ctx: Ctx<"config" | "publicOrigin">, number: string): Promise<void> {
  const telephony = telephonyProvider(ctx.config);
  let routed: boolean;
  try {
    routed = await telephony.routeIncomingCalls(number, `${ctx.publicOrigin}${TWILIO_VOICE_PATH}`);
  } catch (err) {
    if (!(err instanceof ProviderError)) throw err;
    throw new ApiError("telephony_error", `Twilio could not route ${number}'s incoming calls to the platform (${err.message}); retry.`);
  }
  if (!routed)
    throw new ApiError(
      "validation_failed",
      `${number} is a caller id verified in the platform's Twilio account, not one of its numbers: it can place calls but cannot receive them, so no agent can answer it.`,
      { issues: [{ path: "agentId", message: "this number cannot receive calls" }] },
    );
}

/** Asks Twilio whether its account may call from `number`; refuses when it may not. */
async function requireTwilioCallerId(config: AppConfig, number: string, refusal: string): Promise<CallerIdSource> {
  const telephony = telephonyProvider(config);
  let source: CallerIdSource | null;
  try {
    source = await telephony.callerIdSource(number);
  } catch (err) {
    if (!(err instanceof ProviderError)) throw err;
    throw new ApiError("telephony_error", `Twilio could not say whether ${number} is a number of the account (${err.message}); retry.`);
  }
  if (!source) throw new ApiError("caller_id_not_verified", refusal);
  return source;
}

const NOT_IN_TWILIO = (number: string) =>
  `${number} is neither a phone number of this platform's Twilio account nor a caller id verified there. ` +
  "Ask the platform's operator to buy or verify it in that account, then add it again.";

/** Adds a caller id to the workspace: not shared, not another workspace's, and known to Twilio. */
export async function addPhoneNumber({
  ctx,
  input,
}: {
  ctx: NumberCtx;
  input: { number: string; label?: string | null; agentId?: string | null };
}): Promise<PhoneNumber> {
  const { number } = input;
  if (input.agentId) await requireAgent(ctx, input.agentId);
  if (ctx.config.TWILIO_FROM_NUMBERS.includes(number))
    throw new ApiError(
      "phone_number_taken",
      `${number} is one of the platform's shared caller ids: every workspace may already call from it (fromNumber), without adding it.`,
    );
  const holder = () => findNumberHolder(ctx.db, number);
  const taken = (owner: { organizationId: string }) =>
    owner.organizationId === ctx.organizationId
      ? new ApiError("conflict", `${number} is already one of this workspace's phone numbers.`)
      : new ApiError(
          "phone_number_taken",
          `${number} has been added by another workspace: a number belongs to one workspace. If it is yours, ask the platform's operator to release it.`,
        );
  const existing = await holder();
  if (existing) throw taken(existing);
  await requireTwilioCallerId(ctx.config, number, NOT_IN_TWILIO(number));
  if (input.agentId) await routeIncomingCalls(ctx, number);
  const row = await whileAgentExists(
    insertPhoneNumber(ctx.db, ctx.organizationId, { number, label: input.label, agentId: input.agentId ?? null }),
  );
  if (row) return row;
  // Another request added it between our check and the insert: the unique index decided.
  const winner = await holder();
  if (winner) throw taken(winner);
  throw new Error("phone number insert conflicted but no row holds the number");
}

/**
 * The caller id of a new call: the one the request names (by number or id), else the workspace's
 * oldest number, else the platform's first shared one. A workspace number must still be the
 * Twilio account's (checked now); another workspace's number answers like an unknown one.
 */
export async function callerIdFor({
  ctx,
  input,
}: Op<{ fromNumber?: string; phoneNumberId?: string }, "db" | "organizationId" | "config">): Promise<string> {
  const own = await listCallerIds(ctx.db, ctx.organizationId);
  const platform = ctx.config.TWILIO_FROM_NUMBERS;
  let chosen: { id: string; number: string } | undefined;
  if (input.phoneNumberId) {
    chosen = own.find((p) => p.id === input.phoneNumberId);
    if (!chosen)
      throw new ApiError("validation_failed", "No phone number with that id in this workspace (GET /v1/phone-numbers).", {
        issues: [{ path: "phoneNumberId", message: "unknown phone number" }],
      });
  } else if (input.fromNumber) {
    if (platform.includes(input.fromNumber)) return input.fromNumber;
    chosen = own.find((p) => p.number === input.fromNumber);
    if (!chosen)
      throw new ApiError(
        "validation_failed",
        "fromNumber is not one of this workspace's phone numbers (GET /v1/phone-numbers): add it with POST /v1/phone-numbers first.",
        { issues: [{ path: "fromNumber", message: "not a number this workspace may call from" }] },
      );
  } else {
    chosen = own[0];
    if (!chosen) {
      const shared = platform[0];
      if (shared) return shared;
      throw new ApiError("validation_failed", "This workspace has no phone number to call from: add one with POST /v1/phone-numbers.", {
        issues: [{ path: "fromNumber", message: "no caller id available" }],
      });
    }
  }
  await requireTwilioCallerId(
    ctx.config,
    chosen.number,
    `${chosen.number} (phone number ${chosen.id}) is no longer a number of this platform's Twilio account or a caller id verified there. ` +
      "Ask the platform's operator to verify it again, or call from another number (GET /v1/phone-numbers).",
  );
  return chosen.number;
}

/**
 * The numbers of `numbers` the workspace may not call from: neither one of its phone numbers nor
 * one of the platform's shared ones (a campaign's caller ids, checked when it is saved; Twilio is
 * asked again at each call, by callerIdFor).
 */
export async function foreignCallerIds({
  ctx,
  input: { numbers },
}: Op<{ numbers: string[] }, "db" | "organizationId" | "config">): Promise<string[]> {
  const own = new Set((await listCallerIds(ctx.db, ctx.organizationId)).map((p) => p.number));
  return numbers.filter((n) => !own.has(n) && !ctx.config.TWILIO_FROM_NUMBERS.includes(n));
}

/** The one answer for a missing number and another workspace's number. */
export const phoneNumberNotFound = () => new ApiError("not_found", "No phone number with that id in this workspace.");

/** The workspace's caller ids, newest first. */
export async function listPhoneNumbers({ ctx, input: params }: Op<PageParams>): Promise<Page<PhoneNumber>> {
  return await pageOfPhoneNumbers(ctx.db, ctx.organizationId, params);
}

/** Removes one of the workspace's caller ids; 404 when it has no such number. */
export async function removePhoneNumber({ ctx, input: { id } }: Op<{ id: string }>): Promise<void> {
  if (!(await deletePhoneNumber(ctx.db, ctx.organizationId, id))) throw phoneNumberNotFound();
}

/**
 * Changes a number's label or the agent that answers it (`agentId`: one of the workspace's agents,
 * or null to stop answering). Assigning an agent points the number's incoming calls at the
 * platform at Twilio. 404 for a number that is not the workspace's.
 */
export async function updatePhoneNumber({
  ctx,
  input: { id, patch },
}: {
  ctx: NumberCtx;
  input: { id: string; patch: { label?: string | null; agentId?: string | null } };
}): Promise<PhoneNumber> {
  const row = await findPhoneNumber(ctx.db, ctx.organizationId, id);
  if (!row) throw phoneNumberNotFound();
  if (patch.agentId) {
    await requireAgent(ctx, patch.agentId);
    await routeIncomingCalls(ctx, row.number);
  }
  const updated = await whileAgentExists(updatePhoneNumberRow(ctx.db, ctx.organizationId, id, patch));
  if (!updated) throw phoneNumberNotFound(); // removed meanwhile
  return updated;
}
