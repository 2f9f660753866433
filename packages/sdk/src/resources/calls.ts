import { newIdempotencyKey, type RequestOptions } from "../core.js";
import type { PagePromise } from "../pagination.js";
import type { Call, CallCreateParams, CallListParams, WebCall, WebCallCreateParams } from "../types.js";
import { Resource } from "./resource.js";

export class Calls extends Resource {
  /**
   * Places an outbound phone call with the agent. Always sends an Idempotency-Key (yours, or
   * one generated here) and keeps it across retries, so a retried creation never dials twice:
   * the server answers the first call again (`Idempotent-Replayed: true`).
   */
  create(agentId: string, body: CallCreateParams, options: RequestOptions = {}): Promise<Call> {
    const idempotencyKey = options.idempotencyKey ?? newIdempotencyKey();
    return this.call({ operation: "createCall", pathParams: { id: agentId }, body, retryNetwork: true }, { ...options, idempotencyKey });
  }

  /** Starts an in-browser voice session: the call and the one-time WebSocket URL to open (docs/calls.md). */
  createWebCall(agentId: string, body: WebCallCreateParams = {}, options?: RequestOptions): Promise<WebCall> {
    return this.call({ operation: "createWebCall", pathParams: { id: agentId }, body }, options);
  }

  retrieve(id: string, options?: RequestOptions): Promise<Call> {
    return this.call({ operation: "getCall", pathParams: { id } }, options);
  }

  list(query?: CallListParams, options?: RequestOptions): PagePromise<Call> {
    return this.page("listCalls", query, options);
  }

  /**
   * Ends the call: hangs up one in progress (it ends `ended-via-api`; the answer is the call as it
   * is now, possibly still `in-progress`, and `call.completed` follows), or cancels one still queued
   * or ringing (the call, `canceled`). A call that has already ended is a ConflictError (409).
   */
  end(id: string, options?: RequestOptions): Promise<Call> {
    return this.call({ operation: "endCall", pathParams: { id } }, options);
  }

  /** The call's recording, as WAV bytes. */
  recording(id: string, options?: RequestOptions): Promise<Uint8Array> {
    return this.call({ operation: "getCallRecording", pathParams: { id }, expect: "bytes" }, options);
  }
}
