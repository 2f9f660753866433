/** @jsxImportSource hono/jsx */
// What the webhook pages share: the endpoint id of the path, the new form page, the endpoint's page
// (its form, the delivery log, the test receiver's captures, a secret shown once, a notice), and
// the notice of a save whose URL could not be fully checked.
import type { Context } from "hono";
import type { AppEnv } from "../../../context";
import { type FieldErrors, shellOf } from "../../../dashboard/ui";
import { EndpointPage, type EndpointPageProps, NewEndpoint, type Notice } from "../../../dashboard/webhooks/detail";
import type { Values } from "../../../dashboard/webhooks/values";
import { pageQuery } from "../../../db/pagination";
import type { WebhookEndpoint } from "../../../db/schema";
import { isUuid } from "../../../lib/ids";
import { redisFor } from "../../../lib/redis";
import { endpointCaptures } from "../../../webhooks/capture";
import { endpointNotFound, type SaveWarning, toEndpointView } from "../../../webhooks/endpoints";
import { listDeliveries } from "../../../webhooks/log";
import { openEndpoint } from "../../../webhooks/secret-store";
import { logFiltersOf } from "./log-filters";

const LOG_LIMIT = 20;

/** 404 for a malformed id, as for a missing one or another workspace's. */
export function endpointId(c: Context<AppEnv>): string {
  const id = c.req.param("id") ?? "";
  if (!isUuid(id)) throw endpointNotFound();
  return id;
}

export async function renderNew(c: Context<AppEnv>, values: Values, errors: FieldErrors = {}, status: 200 | 400 = 200) {
  const shell = await shellOf(c, "New webhook endpoint", "webhooks");
  return c.html(<NewEndpoint shell={shell} values={values} errors={errors} />, status);
}

type DetailExtra = Pick<EndpointPageProps, "values" | "errors" | "secret" | "notice" | "testEvent">;

export async function renderEndpoint(
  c: Context<AppEnv>,
  stored: WebhookEndpoint,
  extra: DetailExtra = {},
  status: 200 | 201 | 400 | 409 = 200,
) {
  const row = await openEndpoint(c.var.config, stored);
  const origin = c.var.services.publicOrigin;
  const shell = await shellOf(c, `Webhook: ${row.name}`, "webhooks");
  const { filters, values, problems } = logFiltersOf({ status: c.req.query("status"), event: c.req.query("event") });
  const [log, captures] = await Promise.all([
    listDeliveries({
      ctx: c.var.ctx,
      input: { endpointId: row.id, page: pageQuery({ limit: LOG_LIMIT, cursor: c.req.query("cursor") }), filters },
    }),
    endpointCaptures({ ctx: { ...c.var.ctx, redis: redisFor(c.var.config) }, input: { endpointId: row.id } }),
  ]);
  return c.html(
    <EndpointPage
      shell={shell}
      row={row}
      endpoint={toEndpointView(row, origin)}
      log={{ deliveries: log.data, next: log.hasMore ? log.nextCursor : null, filters: values, problems }}
      captures={captures}
      {...extra}
    />,
    status,
  );
}

/** A save whose URL could not be fully checked (SaveWarning): saved, and said so. */
export const saveWarningNotice = (warnings: SaveWarning[]): Notice => ({
  kind: "warn",
  text: warnings.map((w) => `${w.path === "url" ? "Production URL" : "Test URL"}: ${w.message}`).join(" "),
});
