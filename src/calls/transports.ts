// The two ways audio reaches a call session, behind one interface: Twilio Media Streams
// (JSON messages, base64 μ-law 8 kHz) and the browser's web-call socket (binary PCM16 16 kHz,
// JSON control messages). docs/calls.md documents the web protocol.
import { FRAME_MS, fromBase64, mulawDecode, mulawEncode, pcm16FromBytes, pcm16ToBytes, TELEPHONY_RATE, toBase64 } from "./codec";

export interface SessionEvents {
  /** Twilio's `start` (its custom parameters) or the browser joining (no parameters). */
  onStart(params: Record<string, string>, streamId: string | null): void;
  /** One 20 ms frame at the transport's rate. */
  onFrame(frame: Int16Array, at: number): void;
  /** Playback reached a mark we sent. */
  onMark(name: string): void;
  /** The caller pressed a key on the phone's keypad (Twilio's `dtmf`; the web page's `{"type":"dtmf"}`). */
  onDigit(digit: string, at: number): void;
  /** The other side hung up or closed. */
  onHangup(cause: string): void;
  onProtocolError(message: string): void;
}

export interface Transport {
  readonly kind: "twilio" | "web";
  readonly sampleRate: number;
  sendAudio(samples: Int16Array): void;
  sendMark(name: string): void;
  /** Drops audio not yet played (barge-in). */
  clear(): void;
  /** Web calls only: call state and transcript for the page. */
  notify(event: Record<string, unknown>): void;
  close(code: number, reason: string): void;
}

const CHUNK_MS = 100;

/** Twilio Media Streams, bidirectional (`<Connect><Stream>`). */
export class TwilioTransport implements Transport {
  readonly kind = "twilio";
  readonly sampleRate = TELEPHONY_RATE;
  private streamSid: string | null = null;

  constructor(
    private readonly ws: WebSocket,
    events: SessionEvents,
  ) {
    ws.addEventListener("message", (e) => {
      if (typeof e.data !== "string") return events.onProtocolError("binary message on a Twilio media stream");
      let msg: {
        event?: string;
        streamSid?: string;
        start?: { streamSid?: string; customParameters?: Record<string, string> };
        media?: { payload?: string; track?: string };
        mark?: { name?: string };
        dtmf?: { digit?: unknown; track?: string };
      };
      try {
        msg = JSON.parse(e.data);
      } catch {
        return events.onProtocolError("a media stream message is not JSON");
      }
      switch (msg.event) {
        case "start":
          this.streamSid = msg.start?.streamSid ?? msg.streamSid ?? null;
          return events.onStart(msg.start?.customParameters ?? {}, this.streamSid);
        case "media": {
          if (!this.streamSid || (msg.media?.track && msg.media.track !== "inbound")) return;
          if (typeof msg.media?.payload !== "string") return events.onProtocolError("media without a payload");
          const samples = mulawDecode(fromBase64(msg.media.payload));
          const size = (TELEPHONY_RATE * FRAME_MS) / 1000;
          const now = Date.now();
          for (let at = 0; at < samples.length; at += size) events.onFrame(samples.subarray(at, at + size), now);
          return;
        }
        case "mark":
          if (msg.mark?.name) events.onMark(msg.mark.name);
          return;
        case "dtmf":
          // Sent on bidirectional streams only, one key a message, the caller's (inbound_track).
          if (!this.streamSid || (msg.dtmf?.track && msg.dtmf.track !== "inbound_track")) return;
          if (typeof msg.dtmf?.digit !== "string") return events.onProtocolError("dtmf without a digit");
          return events.onDigit(msg.dtmf.digit, Date.now());
        case "stop":
          return events.onHangup("stream-stopped");
        default:
          return; // connected and future events
      }
    });
    ws.addEventListener("close", () => events.onHangup("socket-closed"));
    ws.addEventListener("error", () => events.onHangup("socket-error"));
  }

  private send(msg: Record<string, unknown>): void {
    if (!this.streamSid) return;
    try {
      this.ws.send(JSON.stringify({ ...msg, streamSid: this.streamSid }));
    } catch {
      // the socket closed under us: the close handler ends the session
    }
  }

  sendAudio(samples: Int16Array): void {
    const bytes = mulawEncode(samples);
    const size = (TELEPHONY_RATE * CHUNK_MS) / 1000;
    for (let at = 0; at < bytes.length; at += size)
      this.send({ event: "media", media: { payload: toBase64(bytes.subarray(at, at + size)) } });
  }

  sendMark(name: string): void {
    this.send({ event: "mark", mark: { name } });
  }

  clear(): void {
    this.send({ event: "clear" });
  }

  notify(): void {}

  close(code: number, reason: string): void {
    try {
      this.ws.close(code, reason);
    } catch {
      // already closed
    }
  }
}

export const WEB_CALL_RATE = 16_000;

/** The browser's socket: binary frames are PCM16 LE mono 16 kHz both ways; text frames are JSON. */
export class WebTransport implements Transport {
  readonly kind = "web";
  readonly sampleRate = WEB_CALL_RATE;
  private pending = new Int16Array(0);

  constructor(
    private readonly ws: WebSocket,
    events: SessionEvents,
  ) {
    const frameSize = (WEB_CALL_RATE * FRAME_MS) / 1000;
    ws.addEventListener("message", (e) => {
      if (typeof e.data === "string") {
        let msg: { type?: string; name?: string; digit?: unknown };
        try {
          msg = JSON.parse(e.data);
        } catch {
          return events.onProtocolError("a control message is not JSON");
        }
        if (msg.type === "mark" && typeof msg.name === "string") events.onMark(msg.name);
        else if (msg.type === "hangup") events.onHangup("client-hangup");
        else if (msg.type === "dtmf" && typeof msg.digit === "string") events.onDigit(msg.digit, Date.now());
        return;
      }
      const bytes = new Uint8Array(e.data as ArrayBuffer);
      if (bytes.length % 2 !== 0) return events.onProtocolError("audio frames must be whole 16-bit samples");
      const incoming = pcm16FromBytes(bytes);
      const joined = new Int16Array(this.pending.length + incoming.length);
      joined.set(this.pending);
      joined.set(incoming, this.pending.length);
      const now = Date.now();
      let at = 0;
      for (; at + frameSize <= joined.length; at += frameSize) events.onFrame(joined.subarray(at, at + frameSize), now);
      this.pending = joined.slice(at);
    });
    ws.addEventListener("close", () => events.onHangup("socket-closed"));
    ws.addEventListener("error", () => events.onHangup("socket-error"));
    queueMicrotask(() => events.onStart({}, null));
  }

  sendAudio(samples: Int16Array): void {
    const size = (WEB_CALL_RATE * CHUNK_MS) / 1000;
    for (let at = 0; at < samples.length; at += size) this.raw(pcm16ToBytes(samples.subarray(at, at + size)));
  }

  private raw(data: string | Uint8Array): void {
    try {
      this.ws.send(data);
    } catch {
      // closed
    }
  }

  sendMark(name: string): void {
    this.raw(JSON.stringify({ type: "mark", name }));
  }

  clear(): void {
    this.raw(JSON.stringify({ type: "clear" }));
  }

  notify(event: Record<string, unknown>): void {
    this.raw(JSON.stringify(event));
  }

  close(code: number, reason: string): void {
    try {
      this.ws.close(code, reason);
    } catch {
      // already closed
    }
  }
}
