// Text to speech for live calls, metered by characters: the one path a call's speech takes, whole
// (the serial loop, `synthesizeWhole`), streamed as it is made (`synthesizeStreamed`), or fed its
// text as it is written (`speechSession`, input streaming).
import type { Db } from "../db/client";
import { canceled } from "../providers/http";
import type { SpeechRequest, SpeechStream, TtsProvider } from "../providers/types";
import { meter, meterStream, type Payer, type Produced } from "./metered";

export const characters = (text: string) => [...text].length;

/** The whole audio of `request.text`; its characters are held, then charged. */
export function synthesizeWhole(
  db: Db,
  payer: Payer,
  provider: TtsProvider,
  request: SpeechRequest,
  settleInBackground?: (work: Promise<unknown>) => void,
): Promise<ArrayBuffer> {
  const n = characters(request.text);
  return meter(
    db,
    payer,
    { modality: "tts", provider: provider.name, model: request.model, maxQuantity: n },
    async () => ({ result: await provider.synthesize(request), quantity: n }),
    settleInBackground,
  );
}

/**
 * The audio of `request.text` as it arrives (`onAudio` per chunk). The text's characters are held;
 * they are charged once the provider has produced audio for it (its first byte arrived), also when
 * `signal` cancels it after that; a request cancelled before any audio is not charged (docs/calls.md).
 * Resolves with the bytes received.
 */
export function synthesizeStreamed(
  db: Db,
  payer: Payer,
  provider: TtsProvider,
  request: SpeechRequest,
  onAudio: (bytes: Uint8Array) => void,
  signal?: AbortSignal,
  settleInBackground?: (work: Promise<unknown>) => void,
): Promise<number> {
  const n = characters(request.text);
  return meterStream(
    db,
    payer,
    { modality: "tts", provider: provider.name, model: request.model, maxQuantity: n },
    async (produced) => {
      let bytes = 0;
      for await (const chunk of provider.synthesizeStream(request, signal)) {
        bytes += chunk.length;
        produced.quantity = n;
        onAudio(chunk);
      }
      return bytes;
    },
    settleInBackground,
  );
}

/** Characters held at a time for a session: a reply that outgrows the hold takes another before more text is sent. */
export const SESSION_HOLD_CHARS = 1_000;

/** One hold of a session: the characters sent under it, charged when the session is over. */
interface Block {
  room: number;
  sent: number;
  /** Ends the hold's run (`failure`: how the session ended, if it failed). */
  close(failure: unknown): void;
  settled: Promise<unknown>;
}

/**
 * One utterance fed text as it is written (the provider's `openStream`, a Cartesia context): the
 * socket opens at once, the pushed text is sent in order once its characters are held
 * (SESSION_HOLD_CHARS at a time), and the characters sent are charged once, when the session is
 * over: finished, cancelled by `signal` (a barge-in: what was sent is charged) or broken off. A
 * session that produced no audio at all costs nothing, as a chunk cancelled before its first byte.
 * The caller cuts the text into clauses, so the provider speaks each input at once (`bufferDelayMs: 0`).
 */
export function speechSession(
  db: Db,
  payer: Payer,
  provider: TtsProvider,
  request: SpeechRequest,
  signal: AbortSignal,
  settleInBackground?: (work: Promise<unknown>) => void,
): SpeechStream {
  if (!provider.openStream) throw new Error(`${provider.name} does not take text as it is written`);
  // Ours, so that a refused hold stops the provider's context too.
  const stop = new AbortController();
  const onAbort = () => stop.abort(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  if (signal.aborted) onAbort();
  const opening = provider.openStream(request, stop.signal, { bufferDelayMs: 0 });
  opening.catch(() => undefined); // read by the pump and the audio
  const blocks: Block[] = [];
  let produced = false;
  let over = false;
  let failure: unknown = null;
  let pump: Promise<void> = Promise.resolve();

  const hold = (chars: number) =>
    new Promise<Block>((resolve, reject) => {
      let close: (failure: unknown) => void = () => undefined;
      const ended = new Promise<void>((res, rej) => {
        close = (f) => (f === null ? res() : rej(f));
      });
      const block: Block = { room: Math.max(SESSION_HOLD_CHARS, chars), sent: 0, close, settled: Promise.resolve() };
      const run = async (p: Produced) => {
        resolve(block);
        try {
          await ended;
        } finally {
          p.quantity = produced ? block.sent : 0;
        }
      };
      block.settled = meterStream(
        db,
        payer,
        { modality: "tts", provider: provider.name, model: request.model, maxQuantity: block.room },
        run,
        settleInBackground,
      );
      block.settled.catch(reject); // a refused hold (the run never started)
    });

  /** Sends one input (null: the end) once the socket is open and its characters are held (the two alongside). */
  const step = async (text: string | null) => {
    if (over || failure !== null) return;
    if (text === null) return (await opening).end();
    const n = characters(text);
    const last = blocks.at(-1);
    const [opened, held] = await Promise.allSettled([opening, !last || last.room - last.sent < n ? hold(n) : last]);
    if (held.status === "fulfilled" && held.value !== last) blocks.push(held.value);
    if (opened.status === "rejected") throw opened.reason;
    if (held.status === "rejected") throw held.reason;
    if (over || stop.signal.aborted) return; // the session ended meanwhile: nothing more is sent
    opened.value.push(text);
    held.value.sent += n;
  };
  const enqueue = (text: string | null) => {
    pump = pump.then(() =>
      step(text).catch((err: unknown) => {
        failure ??= err;
        stop.abort(err);
      }),
    );
  };

  async function* audio(): AsyncGenerator<Uint8Array> {
    // How it ended: null when the provider said it was done; a consumer that stopped listening cancelled it.
    let ended: unknown = canceled(provider.name);
    try {
      const stream = await opening;
      for await (const chunk of stream.audio) {
        produced = true;
        yield chunk;
      }
      ended = null;
    } catch (err) {
      ended = err;
      throw failure ?? err;
    } finally {
      over = true;
      signal.removeEventListener("abort", onAbort);
      await pump;
      for (const block of blocks) block.close(failure ?? ended);
      await Promise.allSettled(blocks.map((b) => b.settled));
    }
  }

  return {
    push: (text) => {
      if (text !== "") enqueue(text);
    },
    end: () => enqueue(null),
    audio: audio(),
  };
}
