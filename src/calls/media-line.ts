// A live call's media line: the transport the session and its pipeline speak through, which
// send_dtmf replaces. A media stream cannot carry DTMF, so keys are pressed by updating the call
// (<Play digits>, then a new <Connect><Stream> with a fresh stream token): the carrier stops the
// stream, plays the keys and opens a new stream to our media route, which the call's Durable Object
// hands here (attach). Once it starts with the new token it becomes the line, and the same
// conversation goes on over it: nothing of the call starts again (docs/calls.md, "Keypad (DTMF)").
import type { Call } from "../db/schema";
import type { Scope } from "../db/scope";
import type { AppConfig } from "../env";
import { randomBase62, safeEqual, sha256Hex } from "../lib/crypto";
import { publicOrigin } from "../services";
import { telephonyProvider } from "../telephony/registry";
import { CallNotInProgressError } from "../telephony/types";
import { TWILIO_MEDIA_PATH } from "./addresses";
import { dtmfPlayMs } from "./keypad";
import { findCall, rotateStreamToken } from "./queries/calls";
import { type SessionEvents, type Transport, TwilioTransport, WebTransport } from "./transports";

/** How long the new stream may take to start once the keys have played (the carrier opens it then). */
export const RECONNECT_MS = 10_000;

/**
 * How pressing keys went: `pressed` (the new stream carries the call), `caller-gone` (the call
 * ended meanwhile), `refused` (the carrier would not; the old stream goes on), `lost` (the carrier
 * took the keys but no new stream came).
 */
export type Pressed = "pressed" | "caller-gone" | "refused" | "lost";

interface Awaited {
  /** The new stream's token: compared as the stream starts, at once, so none of its first audio is lost. */
  token: string;
  /** The stream being replaced has closed (the carrier stops it to play the keys). */
  oldClosed: boolean;
  started(): void;
}

export class MediaLine implements Transport {
  private current: Transport;
  /** The new stream's socket, until it starts. */
  private incoming: Transport | null = null;
  private awaited: Awaited | null = null;

  constructor(
    socket: WebSocket,
    kind: "twilio" | "web",
    private readonly events: SessionEvents,
  ) {
    this.current = this.open(socket, kind);
  }

  get kind(): Transport["kind"] {
    return this.current.kind;
  }
  get sampleRate(): number {
    return this.current.sampleRate;
  }
  sendAudio(samples: Int16Array): void {
    this.current.sendAudio(samples);
  }
  sendMark(name: string): void {
    this.current.sendMark(name);
  }
  clear(): void {
    this.current.clear();
  }
  notify(event: Record<string, unknown>): void {
    this.current.notify(event);
  }
  close(code: number, reason: string): void {
    this.incoming?.close(code, reason);
    this.current.close(code, reason);
  }

  /** Keys are being pressed: the next media socket of the call is the line's new stream. */
  get awaitsStream(): boolean {
    return this.awaited !== null;
  }

  /** The carrier's new stream (a Twilio socket), handed by the call's Durable Object. */
  attach(socket: WebSocket): void {
    this.incoming?.close(1008, "a newer stream replaced this one");
    this.incoming = this.open(socket, "twilio");
  }

  /** Presses `digits` on the call and waits for the carrier's new stream to carry it. */
  async press(scope: Scope, config: AppConfig, origin: string, call: Call, digits: string): Promise<Pressed> {
    if (this.awaited) return "refused"; // one press at a time
    const token = randomBase62(40);
    const tokenHash = await sha256Hex(token);
    // The old token opens no stream from now on; a call no longer in progress takes no keys.
    if (!(await rotateStreamToken(scope.db, call.id, tokenHash))) return "caller-gone";
    let started = () => {};
    const back = new Promise<true>((resolve) => {
      started = () => resolve(true);
    });
    const awaited: Awaited = { token, oldClosed: false, started };
    this.awaited = awaited;
    try {
      const sid = (await findCall(scope.db, call.id))?.providerCallId ?? call.providerCallId;
      if (!sid) throw new Error("the call has no carrier id yet");
      const url = `${publicOrigin(config, origin).replace(/^http/, "ws")}${TWILIO_MEDIA_PATH(call.id)}`;
      await telephonyProvider(config).sendDigits(sid, digits, url, { token, callId: call.id });
    } catch (err) {
      this.awaited = null;
      log(call.id, "keys refused", { message: (err as Error).message?.slice(0, 300) });
      // The caller hung up while we asked (the carrier refuses a call that is over), or the stream closed meanwhile.
      return err instanceof CallNotInProgressError || awaited.oldClosed ? "caller-gone" : "refused";
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), RECONNECT_MS + dtmfPlayMs(digits));
    });
    const ok = await Promise.race([back, late]);
    clearTimeout(timer);
    if (!ok) {
      this.awaited = null;
      this.incoming?.close(1011, "the stream came too late");
      this.incoming = null;
    }
    log(call.id, ok ? "keys pressed" : "no stream after the keys", { keys: digits.length });
    return ok ? "pressed" : "lost";
  }

  /** A transport whose events reach the session only while it is the line. */
  private open(socket: WebSocket, kind: "twilio" | "web"): Transport {
    const self: { t: Transport | null } = { t: null };
    const live = () => self.t !== null && self.t === this.current;
    const events: SessionEvents = {
      onStart: (params, streamId) => {
        if (self.t && self.t === this.incoming) this.started(self.t, params);
        else if (live()) this.events.onStart(params, streamId);
      },
      onFrame: (frame, at) => live() && this.events.onFrame(frame, at),
      onMark: (name) => live() && this.events.onMark(name),
      onDigit: (digit, at) => live() && this.events.onDigit(digit, at),
      onHangup: (cause) => {
        if (!live()) return; // a replaced stream, or a new one that never started (the wait runs out)
        if (this.awaited)
          this.awaited.oldClosed = true; // stopped by the carrier to play the keys
        else this.events.onHangup(cause);
      },
      onProtocolError: (message) => this.events.onProtocolError(message),
    };
    self.t = kind === "twilio" ? new TwilioTransport(socket, events) : new WebTransport(socket, events);
    return self.t;
  }

  /** The new stream started: with the token we gave the carrier it becomes the line. */
  private started(t: Transport, params: Record<string, string>): void {
    const awaited = this.awaited;
    if (!awaited || !safeEqual(params.token ?? "", awaited.token)) {
      this.incoming = null;
      console.log(JSON.stringify({ level: "info", msg: "media stream refused: wrong stream token", callId: params.callId }));
      t.close(1008, "stream token refused");
      return;
    }
    const old = this.current;
    this.current = t;
    this.incoming = null;
    this.awaited = null;
    old.close(1000, "the stream was replaced");
    awaited.started();
  }
}

const log = (callId: string, msg: string, extra: Record<string, unknown>) =>
  console.log(JSON.stringify({ level: "info", msg, callId, ...extra }));
