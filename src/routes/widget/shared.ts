import type { Context } from "hono";
import { findAgentAt, type RunnableAgent } from "../../agents/versions";
import type { AppEnv } from "../../context";
import type { Widget } from "../../db/schema";
import { ApiError } from "../../lib/errors";

export const PUBLIC_TAG = "Widget (public)";
/** Widget bodies are small: a message of at most 2,000 characters and a few ids. */
export const WIDGET_BODY_LIMIT = 16 * 1024;

/** The widget's agent at the widget's version (its live one when it names none), in one read. */
export async function agentOf(c: Context<AppEnv>, widget: Widget): Promise<RunnableAgent> {
  const found = await findAgentAt({
    ctx: { db: c.var.db, organizationId: widget.organizationId },
    input: { id: widget.agentId, version: widget.agentVersion },
  });
  // The widget row cascades with its agent; a race with the agent's deletion reads as a gone widget.
  if (!found) throw new ApiError("unauthorized", "The widget token is invalid or has been revoked.");
  return found;
}

/**
 * The widget's mode must offer `channel`. The dashboard's preview (`preview`) offers both: it
 * shows the mode chosen in the form, which may not be saved yet.
 */
export function requireChannel(widget: Widget, channel: "chat" | "voice", preview = false): void {
  if (preview) return;
  if (widget.mode !== "both" && widget.mode !== channel) {
    throw new ApiError("channel_disabled", `This widget does not offer ${channel} (its mode is ${widget.mode}).`);
  }
}
