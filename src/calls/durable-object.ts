// One Durable Object per call (named by the call id). It accepts the call's media socket
// (Twilio's stream or the browser's) and runs the session, and its alarm is the call's
// watchdog: whatever happens to sockets, callbacks or the worker, a call that is not over by
// its deadline is ended with `watchdog-timeout` and its terminal webhook fires.
import { DurableObject } from "cloudflare:workers";
import type { AnsweredBy } from "../db/schema";
import { openScope } from "../db/scope";
import { type Bindings, parseEnv } from "../env";
import { contextOf } from "../services";
import { CALL_ID_HEADER, TRANSPORT_HEADER } from "./addresses";
import { type PreparedSpeech, prepareFirstMessage } from "./first-message";
import { finishCall } from "./lifecycle";
import { findCall } from "./queries/calls";
import { CallSessionRuntime } from "./session";
import { type EndedReason, TERMINAL } from "./states";

export class CallSession extends DurableObject<Bindings> {
  private session: CallSessionRuntime | null = null;
  /** The first message's audio, made while the phone rings (`prepare`); the session plays it on answer. */
  private prepared: Promise<PreparedSpeech | null> | null = null;
  /** Answering-machine detection's verdict, when it came before the media stream: the session acts on it when it starts. */
  private answeredBy: AnsweredBy | null = null;

  /** Arms the watchdog: the alarm fires at `deadline` (epoch ms). */
  async watch(callId: string, deadline: number): Promise<void> {
    await this.ctx.storage.put("callId", callId);
    await this.ctx.storage.setAlarm(deadline);
  }

  /** Starts making the first message's audio while the phone rings (once). */
  prepare(callId: string): void {
    if (this.prepared) return;
    this.prepared = prepareFirstMessage(parseEnv(this.env), callId);
    this.ctx.waitUntil(this.prepared);
  }

  /**
   * The carrier says the callee hung up. A live session ends the call; one already ending is left
   * to finish (it writes the transcript and the recording). Either way the session owns the
   * ending: "ending". Null: no session runs here.
   */
  carrierHungUp(callId: string): "ending" | null {
    return this.endLive(callId, "customer-ended-call", "carrier hang-up left to the session");
  }

  /**
   * The API or the dashboard hangs the call up (src/calls/hang-up.ts): a live session ends it
   * `ended-via-api` (its ending hangs up at the carrier, keeps the transcript and the recording and
   * fires the webhook); one already ending finishes with its own reason. "ending" either way; null
   * when no session runs here (the request then ends the call itself).
   */
  hangUpOnRequest(callId: string): "ending" | null {
    // A session still reading the call as it starts is not live yet: the request ends the call in
    // the database, and the session then finds it ended and closes its stream (the carrier's call with it).
    if (!(this.session?.connected || this.session?.isEnding)) return null;
    return this.endLive(callId, "ended-via-api", "hang-up on request left to the session");
  }

  /**
   * Answering-machine detection's verdict (src/calls/voicemail.ts): the session acts on it (the
   * conversation, a hang-up, or the voicemail message), now or, before the stream came, when it starts.
   */
  machineDetected(callId: string, answeredBy: AnsweredBy): void {
    console.log(JSON.stringify({ level: "info", msg: "machine detection verdict", callId, answeredBy, session: !!this.session }));
    if (this.session) this.session.machineDetected(answeredBy);
    else this.answeredBy = answeredBy;
  }

  private endLive(callId: string, reason: EndedReason, msg: string): "ending" | null {
    const session = this.session;
    if (!session || !(session.live || session.isEnding)) return null;
    const already = session.isEnding;
    this.ctx.waitUntil(session.end(reason));
    console.log(JSON.stringify({ level: "info", msg, callId, alreadyEnding: already }));
    return "ending";
  }

  /** The call's media socket (Twilio's stream or the browser's), upgraded here. */
  override async fetch(request: Request): Promise<Response> {
    const callId = request.headers.get(CALL_ID_HEADER) ?? "";
    const url = new URL(request.url);
    if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") return new Response("expected a WebSocket upgrade", { status: 426 });
    const kind = request.headers.get(TRANSPORT_HEADER) === "twilio" ? "twilio" : "web";
    // Keys being pressed (send_dtmf): the carrier's new stream carries the same session on.
    const reconnecting = kind === "twilio" && this.session?.awaitsStream === true;
    if (this.session && !reconnecting) return new Response("this call already has a live media stream", { status: 409 });
    const config = parseEnv(this.env);
    const pair = new WebSocketPair();
    const [client, server] = [pair[0], pair[1]];
    // Binary frames as ArrayBuffer (the standard default is Blob, which would need an await per frame).
    (server as WebSocket & { binaryType: string }).binaryType = "arraybuffer";
    server.accept();
    if (reconnecting) {
      if (!this.session?.attach(server)) server.close(1011, "the call is not awaiting a stream");
      return new Response(null, { status: 101, webSocket: client });
    }
    this.session = new CallSessionRuntime({
      config,
      callId,
      kind,
      socket: server,
      origin: url.origin,
      recordings: this.env.RECORDINGS,
      campaignRunners: this.env.CAMPAIGN_RUNNERS,
      ai: this.env.AI,
      prepared: this.prepared,
      answeredBy: this.answeredBy,
      waitUntil: (p) => this.ctx.waitUntil(p),
      onClosed: () => {
        this.session = null;
      },
    });
    return new Response(null, { status: 101, webSocket: client });
  }

  /** The watchdog. */
  override async alarm(): Promise<void> {
    const callId = await this.ctx.storage.get<string>("callId");
    if (!callId) return;
    const config = parseEnv(this.env);
    const scope = openScope(config);
    try {
      const call = await findCall(scope.db, callId).catch((err: Error) => {
        // A database that does not know the call (or is unreachable): retried once a minute by the
        // cron sweep's backstop, not by re-firing this alarm forever.
        console.log(JSON.stringify({ level: "warn", msg: "watchdog could not read the call", callId, error: err.name }));
        return null;
      });
      if (!call || TERMINAL.has(call.status)) {
        await this.ctx.storage.deleteAll();
        return;
      }
      const due = call.deadlineAt.getTime();
      if (due > Date.now()) {
        await this.ctx.storage.setAlarm(due); // the call moved its deadline (it connected)
        return;
      }
      console.log(JSON.stringify({ level: "warn", msg: "watchdog ending a stale call", callId, status: call.status }));
      if (this.session?.live || this.session?.isEnding) await this.session.end("watchdog-timeout");
      else
        await finishCall(
          contextOf(scope, config, undefined, this.env),
          callId,
          call.status === "queued" && call.type === "web" && !call.sessionTokenUsedAt ? "web-call-not-joined" : "watchdog-timeout",
        );
      await this.ctx.storage.deleteAll();
    } finally {
      this.ctx.waitUntil(scope.close());
    }
  }
}
