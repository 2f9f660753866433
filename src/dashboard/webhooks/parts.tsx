/** @jsxImportSource hono/jsx */
// Pieces the Webhooks screens share: where an endpoint delivers now, its state, the on/off
// toggle, an attempt's outcome in words.
import type { FC } from "hono/jsx";
import { type TargetKind, targetKind } from "../../webhooks/attempt";
import type { EndpointView } from "../../webhooks/endpoints";
import type { AttemptView } from "../../webhooks/log";
import { Badge, Csrf } from "../ui";

export const BASE = "/dashboard/webhooks";

const TARGET_LABELS: Record<TargetKind, string> = {
  production: "Production URL",
  test: "Test URL (Test Mode)",
  test_receiver: "Built-in test receiver",
};

/** Where deliveries go now, as the engine decides (targetKind). */
export const targetOf = (e: EndpointView) => {
  const kind = targetKind(e);
  if (!kind) return { label: "Nowhere: no URL", url: "" };
  return {
    label: TARGET_LABELS[kind],
    url: kind === "test_receiver" ? e.testReceiverUrl : kind === "test" ? (e.testUrl ?? "") : (e.url ?? ""),
  };
};

export const StateBadge: FC<{ e: Pick<EndpointView, "active" | "disabledReason"> }> = ({ e }) =>
  e.active ? (
    <Badge tone="good">active</Badge>
  ) : e.disabledReason ? (
    <Badge tone="bad">turned off by the service</Badge>
  ) : (
    <Badge tone="off">inactive</Badge>
  );

export const ToggleForm: FC<{ csrf: string; e: EndpointView; from?: "list" }> = ({ csrf, e, from }) => (
  <form method="post" action={`${BASE}/${e.id}/toggle`}>
    <Csrf token={csrf} />
    <input type="hidden" name="active" value={e.active ? "false" : "true"} />
    {from ? <input type="hidden" name="from" value={from} /> : null}
    <button type="submit" class="secondary" aria-label={`${e.active ? "Turn off" : "Turn on"} ${e.name}`}>
      {e.active ? "Turn off" : "Turn on"}
    </button>
  </form>
);

/** An attempt's outcome in words: HTTP status, or the network / refusal error. */
export const outcome = (a: Pick<AttemptView, "statusCode" | "error">) =>
  [a.statusCode !== null ? `HTTP ${a.statusCode}` : "", a.error ?? ""].filter(Boolean).join(" · ") || "no answer";
