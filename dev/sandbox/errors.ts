// Errors in OpenAI's shape: `{ error: { message, type, param, code } }` with the HTTP status
// OpenAI uses for the same failure, so a provider adapter maps sandbox errors exactly as it
// maps OpenAI's.

export type OpenAIErrorType = "invalid_request_error" | "authentication_error" | "server_error" | "requests" | "not_found_error";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type: OpenAIErrorType,
    readonly code: string | null,
    readonly param: string | null = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  body(): { error: { message: string; type: string; param: string | null; code: string | null } } {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}

/** 400 invalid_request_error naming the offending parameter. */
export const invalid = (message: string, param: string | null = null, code: string | null = "invalid_value") =>
  new ApiError(400, message, "invalid_request_error", code, param);
