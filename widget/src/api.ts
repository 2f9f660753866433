// The widget's side of the public routes (/widget/v1/*, docs/widget.md). Every request carries
// the widget token in the query; the page's Origin is checked by the server. The dashboard's live
// preview names the widget by id instead (`?preview=`): the server accepts that only with the
// dashboard's session cookie, from the dashboard's own origin, so only there are cookies sent.

export type Mode = "chat" | "voice" | "both";

export interface WidgetConfig {
  widgetId: string;
  mode: Mode;
  title: string;
  greeting: string | null;
  colors: { accent: string; accentText: string; background: string; text: string };
  position: "bottom-right" | "bottom-left";
}

export interface ChatReply {
  sessionId: string;
  started: boolean;
  /** The agent ended the chat (its end_call tool): the next message starts a new session. */
  ended?: boolean;
  reply: { role: "agent"; text: string };
}

export interface WebCall {
  callId: string;
  url: string;
  expiresAt: string;
}

/** A refusal from the service, with our error body's code and message. */
export class WidgetError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly retryAfter: number | null = null,
  ) {
    super(message);
  }
}

/** How requests name the widget: its public token, or (the dashboard's preview) its id. */
export type Credential = { token: string } | { preview: string };

export class Api {
  private readonly query: string;
  /** Cookies only for the preview, a same-origin request; never for a token's cross-origin one. */
  private readonly credentials: RequestCredentials;

  constructor(
    private readonly base: string,
    credential: Credential,
  ) {
    this.query =
      "token" in credential ? `token=${encodeURIComponent(credential.token)}` : `preview=${encodeURIComponent(credential.preview)}`;
    this.credentials = "token" in credential ? "omit" : "same-origin";
  }

  private url(path: string): string {
    return `${this.base}/widget/v1${path}?${this.query}`;
  }

  private async call<T>(path: string, init: RequestInit = {}): Promise<T> {
    let res: Response;
    try {
      res = await fetch(this.url(path), { ...init, credentials: this.credentials, mode: "cors" });
    } catch {
      // A refused preflight or a network failure: the browser tells us no more.
      throw new WidgetError(0, "network", "The service could not be reached (network error or a refused cross-origin request).");
    }
    if (res.status === 204) return undefined as T;
    let body: { code?: string; message?: string } & Record<string, unknown> = {};
    try {
      body = await res.json();
    } catch {
      // not JSON: handled below
    }
    if (!res.ok) {
      const retry = Number(res.headers.get("retry-after"));
      throw new WidgetError(
        res.status,
        body.code ?? "error",
        body.message ?? `HTTP ${res.status}`,
        Number.isFinite(retry) && retry > 0 ? retry : null,
      );
    }
    return body as T;
  }

  config(): Promise<WidgetConfig> {
    return this.call("/config");
  }

  chat(visitorId: string, sessionId: string | null, message: string): Promise<ChatReply> {
    return this.call("/chat", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ visitorId, sessionId, message }),
    });
  }

  /**
   * Ends a session. text/plain keeps it a simple request (no preflight) and keepalive lets it
   * finish when the page is being left.
   */
  end(visitorId: string, sessionId: string): void {
    fetch(this.url(`/sessions/${encodeURIComponent(sessionId)}/end`), {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: JSON.stringify({ visitorId }),
      keepalive: true,
      credentials: this.credentials,
      mode: "cors",
    }).catch(() => undefined);
  }

  webCall(visitorId: string): Promise<WebCall> {
    return this.call("/web-call", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ visitorId }) });
  }
}
