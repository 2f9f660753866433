/** @jsxImportSource hono/jsx */
// What the channel pages share: the connect form, the channel's page (its settings form, the
// check's result, a notice), the agent choices both offer, and the ownership lookup (the API's
// own: src/messaging/channels.ts).
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { listAgentNames } from "../../../agents/service";
import type { AppEnv } from "../../../context";
import { ConnectForm, TYPE_LABELS } from "../../../dashboard/channels/connect";
import { ChannelPage, type ChannelPageProps } from "../../../dashboard/channels/detail";
import { type Values, valuesOf } from "../../../dashboard/channels/form";
import { type FieldErrors, shellOf } from "../../../dashboard/ui";
import type { ChannelType, MessagingChannel } from "../../../db/schema";
import { getChannel } from "../../../messaging/channels";
import { toChannelView } from "../../../messaging/mapper";

async function agentChoices(c: Context<AppEnv>) {
  return (await listAgentNames({ ctx: c.var.ctx })).map((a) => ({ value: a.id, label: a.name }));
}

export async function renderConnect(c: Context<AppEnv>, type: ChannelType, values: Values, errors: FieldErrors = {}, status = 200) {
  const shell = await shellOf(c, "Connect a channel", "channels");
  const agents = await agentChoices(c);
  const shown = { ...values, agentId: values.agentId || (agents[0]?.value ?? "") };
  return c.html(<ConnectForm shell={shell} type={type} values={shown} errors={errors} agents={agents} />, status as ContentfulStatusCode);
}

type PageExtra = Partial<Pick<ChannelPageProps, "values" | "errors" | "notice" | "check">>;

export async function renderChannel(c: Context<AppEnv>, channel: MessagingChannel, extra: PageExtra = {}, status: 200 | 400 = 200) {
  const shell = await shellOf(c, `${TYPE_LABELS[channel.type]}: ${channel.name}`, "channels");
  const view = toChannelView(channel, c.var.services.publicOrigin);
  const agents = await agentChoices(c);
  return c.html(<ChannelPage shell={shell} channel={channel} view={view} agents={agents} values={valuesOf(channel)} {...extra} />, status);
}

export const own = (c: Context<AppEnv>) => getChannel({ ctx: c.var.ctx, input: { id: c.req.param("id") ?? "" } });
