// The one Hono app: middleware, the /v1 API, the dashboard's JSON routes, docs.
import { requestId } from "hono/request-id";
import { secureHeaders } from "hono/secure-headers";
import { createRouter } from "./context";
import { registerDashboardApi } from "./dashboard/api";
import { ApiError, handleError } from "./lib/errors";
import { newId } from "./lib/ids";
import { authenticate } from "./middleware/auth";
import { JSON_BODY_LIMIT, limitBody, requireContentType, sameOriginForCookies } from "./middleware/guards";
import { init } from "./middleware/init";
import { rateLimit } from "./middleware/ratelimit";
import { registerDocs } from "./routes/docs";
import { registerV1 } from "./routes/v1";

export function createApp() {
  const app = createRouter();
  app.onError(handleError);
  app.notFound((c) => {
    throw new ApiError("not_found", `No route for ${c.req.method} ${new URL(c.req.url).pathname}.`);
  });

  app.use("*", requestId({ generator: newId, headerName: "X-Request-Id" }));
  app.use("*", secureHeaders({ crossOriginResourcePolicy: false }));
  app.use("*", init);

  /** Bare route with no auth and no I/O: liveness, and the benchmark's baseline. */
  app.get("/health", (c) => c.json({ status: "ok" }));

  registerDocs(app); // public: /v1/openapi.json and /docs, before the /v1 auth below

  app.use("/v1/*", sameOriginForCookies, limitBody(JSON_BODY_LIMIT), requireContentType());
  app.use("/v1/*", (c, next) => authenticate({ orgOptional: c.req.path === "/v1/me" })(c, next));
  app.use("/v1/*", rateLimit);
  registerV1(app);

  app.use("/dashboard/api/*", sameOriginForCookies, limitBody(JSON_BODY_LIMIT), requireContentType());
  registerDashboardApi(app);

  return app;
}

export type App = ReturnType<typeof createApp>;
