/** @jsxImportSource hono/jsx */
// Webhooks (admins only: settings:read to look, settings:write to change; spec: Authentication 7),
// under /dashboard/webhooks: the endpoint list, create and edit, the active toggle, Send Test, the
// signing secret shown once at creation and rotation, the built-in test receiver's captures, the
// delivery log with every attempt, and resend. Every operation is the API's own function
// (src/webhooks/*) validated by the API's own schemas (routes/v1/webhook-endpoints/schema.ts).
import type { Context } from "hono";
import type { AppEnv } from "../../context";
import { pageQuery } from "../../db/pagination";
import type { WebhookEndpoint } from "../../db/schema";
import { ApiError } from "../../lib/errors";
import { isUuid } from "../../lib/ids";
import { redisFor } from "../../lib/redis";
import { createEndpointSchema, updateEndpointSchema } from "../../routes/v1/webhook-endpoints/schema";
import { endpointCaptures } from "../../webhooks/capture";
import {
  createEndpoint,
  deleteEndpoint,
  endpointNotFound,
  getEndpoint,
  listEndpoints,
  rotateSecret,
  type SavedEndpoint,
  type SaveWarning,
  toEndpointView,
  updateEndpoint,
} from "../../webhooks/endpoints";
import { type DeliveryView, getDelivery, listDeliveries, resendDelivery } from "../../webhooks/log";
import { openEndpoint } from "../../webhooks/secret-store";
import { sendTestEvent } from "../../webhooks/test-event";
import { apiErrorFields, one, validate } from "../forms";
import { adminOnly, screenRouter } from "../routers";
import { type FieldErrors, shellOf } from "../ui";
import { EndpointPage, type EndpointPageProps, NewEndpoint, type Notice } from "./detail";
import { EndpointList } from "./list";
import { BASE, outcome } from "./parts";
import { inputOf, onFields, typedValues, type Values, valuesOf } from "./values";

const LIST_LIMIT = 50;
const LOG_LIMIT = 20;

/** 404 for a malformed id, as for a missing one or another workspace's. */
function endpointId(c: Context<AppEnv>): string {
  const id = c.req.param("id") ?? "";
  if (!isUuid(id)) throw endpointNotFound();
  return id;
}

const LIST_NOTICES: Record<string, string> = { deleted: "Endpoint deleted.", on: "Endpoint turned on.", off: "Endpoint turned off." };

async function renderList(c: Context<AppEnv>) {
  const shell = await shellOf(c, "Webhooks", "webhooks");
  const page = await listEndpoints({ ctx: c.var.ctx, input: pageQuery({ limit: LIST_LIMIT, cursor: c.req.query("cursor") }) });
  const next = page.hasMore && page.nextCursor ? page.nextCursor : null;
  return c.html(<EndpointList shell={shell} endpoints={page.data} next={next} notice={LIST_NOTICES[c.req.query("notice") ?? ""]} />);
}

async function renderNew(c: Context<AppEnv>, values: Values, errors: FieldErrors = {}, status: 200 | 400 = 200) {
  const shell = await shellOf(c, "New webhook endpoint", "webhooks");
  return c.html(<NewEndpoint shell={shell} values={values} errors={errors} />, status);
}

type DetailExtra = Pick<EndpointPageProps, "values" | "errors" | "secret" | "notice">;

async function renderEndpoint(c: Context<AppEnv>, stored: WebhookEndpoint, extra: DetailExtra = {}, status: 200 | 201 | 400 | 409 = 200) {
  const { db, auth } = c.var;
  const row = await openEndpoint(c.var.config, stored);
  const origin = c.var.services.publicOrigin;
  const shell = await shellOf(c, `Webhook: ${row.name}`, "webhooks");
  const [log, captures] = await Promise.all([
    listDeliveries(db, auth.organizationId, row.id, pageQuery({ limit: LOG_LIMIT, cursor: c.req.query("cursor") }), {}),
    endpointCaptures(db, redisFor(c.var.config), auth.organizationId, row.id, origin),
  ]);
  return c.html(
    <EndpointPage
      shell={shell}
      row={row}
      endpoint={toEndpointView(row, origin)}
      log={{ deliveries: log.data, next: log.hasMore ? log.nextCursor : null }}
      captures={captures}
      {...extra}
    />,
    status,
  );
}

/** A delivery's outcome for the flash after Send Test or Resend. */
function deliveryNotice(verb: string, d: DeliveryView): Notice {
  const last = d.attempts[d.attempts.length - 1];
  if (d.status === "pending" || !last) return { kind: "ok", text: `${verb}: delivery ${d.id} is queued.` };
  const ok = d.status === "succeeded";
  return { kind: ok ? "ok" : "error", text: `${verb}: ${d.event} delivery ${d.id} ${d.status} (${outcome(last)}).` };
}

const DETAIL_NOTICES: Record<string, Notice> = {
  saved: { kind: "ok", text: "Endpoint saved." },
  on: { kind: "ok", text: "Endpoint turned on." },
  off: { kind: "ok", text: "Endpoint turned off." },
};

async function noticeOf(c: Context<AppEnv>, endpointId: string): Promise<Notice | undefined> {
  const code = c.req.query("notice") ?? "";
  const deliveryId = c.req.query("delivery") ?? "";
  if ((code === "tested" || code === "resent") && isUuid(deliveryId)) {
    try {
      const d = await getDelivery(c.var.db, c.var.auth.organizationId, endpointId, deliveryId);
      return deliveryNotice(code === "tested" ? "Send Test" : "Resend", d);
    } catch (err) {
      if (err instanceof ApiError && err.code === "not_found") return undefined;
      throw err;
    }
  }
  return DETAIL_NOTICES[code];
}

/** A save whose URL could not be fully checked (SaveWarning): saved, and said so. */
const saveWarningNotice = (warnings: SaveWarning[]): Notice => ({
  kind: "warn",
  text: warnings.map((w) => `${w.path === "url" ? "Production URL" : "Test URL"}: ${w.message}`).join(" "),
});

const CREATED_WARNING =
  "Endpoint created. Copy the signing secret now: this is the only time it is shown in full. Your receiver verifies X-Service-Signature with it.";
const ROTATED_WARNING =
  "Secret rotated: the old secret stopped validating. Copy the new one now: this is the only time it is shown in full.";

export function webhookPages() {
  const app = screenRouter(adminOnly);

  app.get("/", (c) => renderList(c));

  app.get("/new", (c) => renderNew(c, valuesOf(null)));

  app.post("/", async (c) => {
    const values = typedValues(c.var.form);
    const checked = validate(createEndpointSchema, inputOf(values));
    if (!checked.ok) return renderNew(c, values, onFields(checked.errors, values), 400);
    let row: SavedEndpoint;
    try {
      row = await createEndpoint({ ctx: c.var.ctx, input: checked.data });
    } catch (err) {
      if (err instanceof ApiError && err.code === "validation_failed")
        return renderNew(c, values, onFields(apiErrorFields(err), values), 400);
      throw err;
    }
    // The secret is in this response only: never in a URL, a cookie or a cache.
    c.header("Cache-Control", "no-store");
    const notice = row.warnings.length ? saveWarningNotice(row.warnings) : undefined;
    return renderEndpoint(c, row, { secret: { value: row.secret, warning: CREATED_WARNING }, notice }, 201);
  });

  app.get("/:id", async (c) => {
    const id = endpointId(c);
    const row = await getEndpoint({ ctx: c.var.ctx, input: { id } });
    return renderEndpoint(c, row, { notice: await noticeOf(c, id) });
  });

  app.post("/:id", async (c) => {
    const row = await getEndpoint({ ctx: c.var.ctx, input: { id: endpointId(c) } });
    const values = typedValues(c.var.form);
    const { active, ...rest } = inputOf(values);
    // `active` only when it changes: turning on again also clears the service's failure count.
    const checked = validate(updateEndpointSchema, active === row.active ? rest : { ...rest, active });
    if (!checked.ok) return renderEndpoint(c, row, { values, errors: onFields(checked.errors, values) }, 400);
    let saved: SavedEndpoint;
    try {
      saved = await updateEndpoint({ ctx: c.var.ctx, input: { id: row.id, patch: checked.data } });
    } catch (err) {
      if (err instanceof ApiError && err.code === "validation_failed")
        return renderEndpoint(c, row, { values, errors: onFields(apiErrorFields(err), values) }, 400);
      throw err;
    }
    if (saved.warnings.length) return renderEndpoint(c, saved, { notice: saveWarningNotice(saved.warnings) });
    return c.redirect(`${BASE}/${row.id}?notice=saved`, 303);
  });

  app.post("/:id/toggle", async (c) => {
    const id = endpointId(c);
    const wanted = one(c.var.form, "active");
    const checked = validate(updateEndpointSchema, { active: wanted === "true" ? true : wanted === "false" ? false : wanted });
    if (!checked.ok) throw new ApiError("bad_request", "The toggle form must send active=true or active=false.");
    const row = await updateEndpoint({ ctx: c.var.ctx, input: { id, patch: checked.data } });
    const notice = row.active ? "on" : "off";
    return c.redirect(one(c.var.form, "from") === "list" ? `${BASE}?notice=${notice}` : `${BASE}/${row.id}?notice=${notice}`, 303);
  });

  app.post("/:id/test", async (c) => {
    const delivery = await sendTestEvent(c.var.services.webhooks, c.var.auth.organizationId, endpointId(c));
    return c.redirect(`${BASE}/${delivery.endpointId}?notice=tested&delivery=${delivery.id}#deliveries`, 303);
  });

  app.post("/:id/rotate-secret", async (c) => {
    const row = await rotateSecret({ ctx: c.var.ctx, input: { id: endpointId(c) } });
    c.header("Cache-Control", "no-store");
    return renderEndpoint(c, row, { secret: { value: row.secret, warning: ROTATED_WARNING } });
  });

  app.post("/:id/delete", async (c) => {
    await deleteEndpoint({ ctx: c.var.ctx, input: { id: endpointId(c) } });
    return c.redirect(`${BASE}?notice=deleted`, 303);
  });

  app.post("/:id/deliveries/:deliveryId/resend", async (c) => {
    const id = endpointId(c);
    const deliveryId = c.req.param("deliveryId");
    const { organizationId } = c.var.auth;
    const row = await getEndpoint({ ctx: c.var.ctx, input: { id } });
    if (!isUuid(deliveryId)) throw new ApiError("not_found", "No delivery with that id for this endpoint.");
    try {
      const delivery = await resendDelivery(c.var.services.webhooks, organizationId, id, deliveryId);
      return c.redirect(`${BASE}/${id}?notice=resent&delivery=${delivery.id}#delivery-${delivery.id}`, 303);
    } catch (err) {
      if (err instanceof ApiError && err.code === "conflict")
        return renderEndpoint(c, row, { notice: { kind: "error", text: err.message } }, 409);
      throw err;
    }
  });

  return app;
}
