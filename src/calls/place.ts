// Creating calls: the phone call (caller id: phone-numbers.ts; idempotency, the carrier's dial)
// and the web call (a one-time session token). Shared by the API, the dashboard and the widget;
// each takes `{ ctx, input }` (src/services.ts).
import { agentToRun, type RunnableAgent } from "../agents/versions";
import type { Db } from "../db/client";
import type { Agent, Call } from "../db/schema";
import { randomBase62, sha256Hex } from "../lib/crypto";
import { ApiError } from "../lib/errors";
import { newId } from "../lib/ids";
import type { DomainContext, Op } from "../services";
import { telephonyProvider } from "../telephony/registry";
import { DialError, type PlaceCallRequest } from "../telephony/types";
import { TWILIO_AMD_PATH, TWILIO_MEDIA_PATH, TWILIO_STATUS_PATH, WEB_CALL_SOCKET_PATH } from "./addresses";
import { withinInFlightLimit } from "./in-flight";
import { finishCall, isEnded } from "./lifecycle";
import { callerIdFor } from "./phone-numbers";
import { requireVariables } from "./prompt";
import {
  findCallByIdempotencyKey,
  hasCredits,
  insertCall,
  insertIdempotentCall,
  saveProviderCallId,
  spendWebCallToken,
} from "./queries/calls";
import { armWatchdog, prepareFirstMessageWhileRinging, upgradeAtSession } from "./stub";

const wsOrigin = (origin: string) => origin.replace(/^http/, "ws");

export interface PlaceInput {
  phoneNumber: string;
  fromNumber?: string;
  phoneNumberId?: string;
  /** Given (even `{}`): every `{{name}}` of the agent's templates must be among them (prompt.ts). */
  variables?: Record<string, string>;
  metadata?: Record<string, unknown>;
  /** The agent's version the call runs (a draft too); left out, the live one (docs/agents.md, "Versions"). */
  agentVersion?: number;
}

/** A campaign's call: the campaign and the recipient row it dials (counted against the campaign's limit too). */
export interface CampaignAttempt {
  campaignId: string;
  recipientId: string;
}

/** What placing a call needs: the domain context, the organization, the public origin (the carrier's callbacks) and the calls' Durable Objects. */
export type PlaceNeeds = keyof DomainContext | "organizationId" | "publicOrigin" | "callSessions";
type Ctx = Op<unknown, PlaceNeeds>["ctx"];

/** Calls need credits for their first turns: refuse at once when there are none. */
async function requireCredits(db: Db, organizationId: string): Promise<void> {
  if (!(await hasCredits(db, organizationId)))
    throw new ApiError("insufficient_credits", "The workspace has no usage credits left for the call's speech and LLM; add credits first.");
}

/**
 * What every new call row starts with: queued, the agent's name kept, the version it runs (the
 * session reads that version's configuration when the media connects), phone calls outbound, web
 * calls `web` (no phone leg).
 */
const newCall = (ctx: Ctx, { agent, version }: RunnableAgent, id: string, type: "phone" | "web") => ({
  id,
  organizationId: ctx.organizationId,
  agentId: agent.id,
  agentName: agent.name,
  agentVersion: version,
  type,
  direction: type === "phone" ? ("outbound" as const) : ("web" as const),
  status: "queued" as const,
});

export interface Placed {
  call: Call;
  replayed: boolean;
}

/**
 * Places an outbound phone call with `live` (the workspace's agent as its row stands) at
 * `call.agentVersion`, or its live version; 404 for a version it does not have.
 */
export async function placePhoneCall({
  ctx,
  input: { agent: live, call: input, idempotencyKey, campaign },
}: Op<{ agent: Agent; call: PlaceInput; idempotencyKey: string | undefined; campaign?: CampaignAttempt }, PlaceNeeds>): Promise<Placed> {
  const fingerprint = await sha256Hex(JSON.stringify([live.id, input]));
  const replay = async (): Promise<Placed | null> => {
    if (!idempotencyKey) return null;
    const existing = await findCallByIdempotencyKey(ctx.db, ctx.organizationId, idempotencyKey);
    if (!existing) return null;
    if (existing.idempotencyHash !== fingerprint)
      throw new ApiError("idempotency_conflict", "This Idempotency-Key was used for a different call request; use a new key.");
    return { call: existing, replayed: true };
  };
  const earlier = await replay();
  if (earlier) return earlier;

  const running = await agentToRun({ ctx, input: { agent: live, version: input.agentVersion } });
  const { agent } = running;
  const telephony = telephonyProvider(ctx.config);
  if (input.variables) requireVariables(agent, input.variables);
  await requireCredits(ctx.db, ctx.organizationId);
  const from = await callerIdFor({ ctx, input });
  const streamToken = randomBase62(40);
  const id = newId();
  const deadline = new Date(Date.now() + (ctx.config.CALL_RING_TIMEOUT_SECONDS + ctx.config.CALL_WATCHDOG_GRACE_SECONDS) * 1000);
  // Refused here (429, nothing dialled) when the workspace or the campaign has its most calls in flight.
  const row = await withinInFlightLimit(
    insertIdempotentCall(ctx.db, {
      ...newCall(ctx, running, id, "phone"),
      fromNumber: from,
      toNumber: input.phoneNumber,
      provider: telephony.name,
      idempotencyKey: idempotencyKey ?? null,
      idempotencyHash: idempotencyKey ? fingerprint : null,
      variables: input.variables ?? {},
      metadata: input.metadata ?? {},
      streamTokenHash: await sha256Hex(streamToken),
      deadlineAt: deadline,
      campaignId: campaign?.campaignId ?? null,
      campaignRecipientId: campaign?.recipientId ?? null,
    }),
  );
  if (!row) {
    // A concurrent request with the same key inserted first: answer with its call.
    const other = await replay();
    if (other) return other;
    throw new Error("idempotent insert conflicted but no call was found");
  }
  await armWatchdog(ctx.callSessions(), id, deadline);
  try {
    const { providerCallId } = await telephony.placeCall({
      to: input.phoneNumber,
      from,
      streamUrl: `${wsOrigin(ctx.publicOrigin)}${TWILIO_MEDIA_PATH(id)}`,
      streamParameters: { token: streamToken, callId: id },
      statusCallbackUrl: `${ctx.publicOrigin}${TWILIO_STATUS_PATH(id)}`,
      ringTimeoutSeconds: ctx.config.CALL_RING_TIMEOUT_SECONDS,
      ...machineDetectionFor(agent, `${ctx.publicOrigin}${TWILIO_AMD_PATH(id)}`),
    });
    // The carrier took the call: its first message is synthesized while it rings (off the response path).
    if (agent.firstMessage) ctx.waitUntil(prepareFirstMessageWhileRinging(ctx.callSessions(), id));
    const updated = await saveProviderCallId(ctx.db, id, providerCallId);
    // Ended while it was being dialled (canceled through the API or the dashboard before the carrier gave its id): cancel it there too.
    if (updated && isEnded(updated)) ctx.waitUntil(telephony.cancel(providerCallId).catch(() => undefined));
    return { call: updated ?? row, replayed: false };
  } catch (err) {
    if (!(err instanceof DialError)) throw err;
    console.log(JSON.stringify({ level: "info", msg: "dial failed", callId: id, failure: err.failure, message: err.message }));
    const ended = await finishCall(ctx, id, err.failure === "invalid-number" ? "dial-failed" : "telephony-provider-error");
    return { call: ended ?? row, replayed: false };
  }
}

/**
 * The agent's voicemail plan as the carrier's detection (docs/campaigns.md, "Voicemail"): to hang up,
 * the verdict as soon as the carrier knows; to leave a message, a machine's verdict once its greeting
 * ended (the beep), so the message is said into the recording, not over the greeting.
 */
function machineDetectionFor(agent: Agent, callbackUrl: string): Pick<PlaceCallRequest, "machineDetection"> {
  const { detection } = agent.voicemail;
  if (detection === "off") return {};
  return { machineDetection: { mode: detection === "hang-up" ? "Enable" : "DetectMessageEnd", callbackUrl } };
}

export interface WebCallSession {
  call: Call;
  token: string;
  expiresAt: Date;
  url: string;
}

/** A web call with `live` at `agentVersion`, or its live version; 404 for a version it does not have. */
export async function startWebCall({
  ctx,
  input: { agent: live, agentVersion, ...input },
}: Op<
  { agent: Agent; agentVersion?: number | null; variables?: Record<string, string>; metadata?: Record<string, unknown> },
  PlaceNeeds
>): Promise<WebCallSession> {
  const running = await agentToRun({ ctx, input: { agent: live, version: agentVersion } });
  if (input.variables) requireVariables(running.agent, input.variables);
  await requireCredits(ctx.db, ctx.organizationId);
  const token = `wct_${randomBase62(40)}`;
  const id = newId();
  const expiresAt = new Date(Date.now() + ctx.config.WEB_CALL_TOKEN_TTL_SECONDS * 1000);
  const deadline = new Date(expiresAt.getTime() + ctx.config.CALL_WATCHDOG_GRACE_SECONDS * 1000);
  const row = await withinInFlightLimit(
    insertCall(ctx.db, {
      ...newCall(ctx, running, id, "web"),
      variables: input.variables ?? {},
      metadata: input.metadata ?? {},
      sessionTokenHash: await sha256Hex(token),
      sessionTokenExpiresAt: expiresAt,
      deadlineAt: deadline,
    }),
  );
  if (!row) throw new Error("insert returned no row");
  await armWatchdog(ctx.callSessions(), id, deadline);
  const url = `${wsOrigin(ctx.publicOrigin)}${WEB_CALL_SOCKET_PATH(id)}?token=${encodeURIComponent(token)}`;
  return { call: row, token, expiresAt, url };
}

/** Spends a web call's one-time token: true exactly once, before it expires, for a call not yet joined. */
export async function redeemWebCallToken(db: Db, callId: string, token: string): Promise<boolean> {
  return await spendWebCallToken(db, callId, await sha256Hex(token));
}

/**
 * Joins a web call from the worker itself, as a browser joins it (an agent test's voice run: the
 * simulated caller): its one-time token spent, then the socket upgraded at the call's Durable Object,
 * as the web-call route does. The worker's end of the socket, accepted (binary messages as ArrayBuffer).
 */
export async function joinWebCallInWorker({
  ctx,
  input: { session },
}: Op<{ session: WebCallSession }, "db" | "publicOrigin" | "callSessions">): Promise<WebSocket> {
  const { id } = session.call;
  if (!(await redeemWebCallToken(ctx.db, id, session.token))) throw new Error("the web call's token was refused");
  const res = await upgradeAtSession(
    ctx.callSessions(),
    id,
    "web",
    // The session reads only the URL's origin; a cron run without PUBLIC_BASE_URL has none to give.
    `${ctx.publicOrigin || "https://worker.invalid"}${WEB_CALL_SOCKET_PATH(id)}`,
    new Headers({ upgrade: "websocket" }),
  );
  const socket = res.webSocket;
  if (res.status !== 101 || !socket) throw new Error(`the call's session refused the web-call socket (${res.status})`);
  (socket as WebSocket & { binaryType: string }).binaryType = "arraybuffer";
  socket.accept();
  return socket;
}
