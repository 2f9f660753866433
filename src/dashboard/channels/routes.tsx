/** @jsxImportSource hono/jsx */
// Messaging channels (issue 14), under /dashboard/channels: everyone sees the list and a
// channel's page; admins (settings:write, as webhooks) connect, change, test, pause, resume and
// remove (docs/dashboard.md). Every operation is the API's own function (src/messaging/channels.ts)
// validated by the API's own schemas (src/messaging/schema.ts).
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { listAgentNames } from "../../agents/service";
import type { AppEnv } from "../../context";
import { pageQuery } from "../../db/pagination";
import type { ChannelType, MessagingChannel } from "../../db/schema";
import { ApiError } from "../../lib/errors";
import { checkChannel, createChannel, deleteChannel, getChannel, listChannels, updateChannel } from "../../messaging/channels";
import { toChannelView } from "../../messaging/mapper";
import { createChannelSchema, updateChannelSchema } from "../../messaging/schema";
import { apiErrorFields, one, validate } from "../forms";
import { adminOnly, screenRouter } from "../routers";
import { type FieldErrors, shellOf } from "../ui";
import { BASE, ConnectForm, TYPE_LABELS } from "./connect";
import { ChannelPage, type ChannelPageProps, RemovePage } from "./detail";
import { createInputOf, onFields, typed, typeOf, updateInputOf, type Values, valuesOf } from "./form";
import { ChannelList } from "./list";

const LIST_LIMIT = 50;

async function agentChoices(c: Context<AppEnv>) {
  return (await listAgentNames({ ctx: c.var.ctx })).map((a) => ({ value: a.id, label: a.name }));
}

/** The provider's refusal on the field it is about (the token, the number); a provider failure on the form. */
function connectErrors(err: unknown, type: ChannelType): FieldErrors {
  if (!(err instanceof ApiError)) throw err;
  if (err.code === "channel_credentials_rejected") return { [type === "telegram" ? "botToken" : "accessToken"]: err.message };
  if (err.code === "channel_taken") return { [type === "telegram" ? "botToken" : "phoneNumberId"]: err.message };
  if (err.code === "channel_provider_error") return { form: err.message };
  return apiErrorFields(err);
}

async function renderConnect(c: Context<AppEnv>, type: ChannelType, values: Values, errors: FieldErrors = {}, status = 200) {
  const shell = await shellOf(c, "Connect a channel", "channels");
  const agents = await agentChoices(c);
  const shown = { ...values, agentId: values.agentId || (agents[0]?.value ?? "") };
  return c.html(<ConnectForm shell={shell} type={type} values={shown} errors={errors} agents={agents} />, status as ContentfulStatusCode);
}

type PageExtra = Partial<Pick<ChannelPageProps, "values" | "errors" | "notice" | "check">>;

async function renderChannel(c: Context<AppEnv>, channel: MessagingChannel, extra: PageExtra = {}, status: 200 | 400 = 200) {
  const shell = await shellOf(c, `${TYPE_LABELS[channel.type]}: ${channel.name}`, "channels");
  const view = toChannelView(channel, c.var.services.publicOrigin);
  const agents = await agentChoices(c);
  return c.html(<ChannelPage shell={shell} channel={channel} view={view} agents={agents} values={valuesOf(channel)} {...extra} />, status);
}

const own = (c: Context<AppEnv>) => getChannel({ ctx: c.var.ctx, input: { id: c.req.param("id") ?? "" } });

const NOTICES: Record<string, string> = {
  connected: "Channel connected.",
  saved: "Channel saved.",
  paused: "Channel paused: messages are acknowledged and not answered.",
  active: "Channel resumed: the agent answers again.",
};

export function channelPages() {
  const app = screenRouter();

  app.get("/", async (c) => {
    const shell = await shellOf(c, "Channels", "channels");
    const org = c.var.auth.organizationId;
    const [page, agents] = await Promise.all([
      listChannels({ ctx: c.var.ctx, input: pageQuery({ limit: LIST_LIMIT, cursor: c.req.query("cursor") }) }),
      listAgentNames({ ctx: { db: c.var.db, organizationId: org } }),
    ]);
    const agentNames = new Map(agents.map((a) => [a.id, a.name]));
    const notice = c.req.query("notice") === "removed" ? "Channel removed." : undefined;
    return c.html(<ChannelList shell={shell} channels={page.data} agentNames={agentNames} next={page.nextCursor} notice={notice} />);
  });

  app.get("/new", adminOnly, (c) => renderConnect(c, typeOf(c.req.query("type")), valuesOf(null)));

  app.post("/", adminOnly, async (c) => {
    const type = typeOf(one(c.var.form, "type"));
    const checked = validate(createChannelSchema, createInputOf(c.var.form, type));
    if (!checked.ok) return renderConnect(c, type, typed(c.var.form), onFields(checked.errors), 400);
    try {
      const row = await createChannel({ ctx: c.var.ctx, input: checked.data });
      return c.redirect(`${BASE}/${row.id}?notice=connected`, 303);
    } catch (err) {
      return renderConnect(c, type, typed(c.var.form), connectErrors(err, type), err instanceof ApiError ? err.status : 500);
    }
  });

  app.get("/:id", async (c) => renderChannel(c, await own(c), { notice: NOTICES[c.req.query("notice") ?? ""] }));

  app.post("/:id", adminOnly, async (c) => {
    const channel = await own(c);
    const checked = validate(updateChannelSchema, updateInputOf(c.var.form));
    if (!checked.ok) return renderChannel(c, channel, { values: typed(c.var.form), errors: checked.errors }, 400);
    try {
      await updateChannel({ ctx: c.var.ctx, input: { ...checked.data, id: channel.id } });
      return c.redirect(`${BASE}/${channel.id}?notice=saved`, 303);
    } catch (err) {
      return renderChannel(c, channel, { values: typed(c.var.form), errors: apiErrorFields(err) }, 400);
    }
  });

  app.post("/:id/test", adminOnly, async (c) => {
    const channel = await own(c);
    return renderChannel(c, channel, { check: await checkChannel({ ctx: c.var.ctx, input: { id: channel.id } }) });
  });

  app.post("/:id/status", adminOnly, async (c) => {
    const channel = await own(c);
    const checked = validate(updateChannelSchema, { status: one(c.var.form, "status") });
    if (!checked.ok) throw new ApiError("validation_failed", "status: choose active or paused");
    await updateChannel({ ctx: c.var.ctx, input: { ...checked.data, id: channel.id } });
    return c.redirect(`${BASE}/${channel.id}?notice=${checked.data.status}`, 303);
  });

  app.get("/:id/remove", adminOnly, async (c) => {
    const channel = await own(c);
    return c.html(<RemovePage shell={await shellOf(c, `Remove ${channel.name}`, "channels")} channel={channel} />);
  });

  app.post("/:id/remove", adminOnly, async (c) => {
    const channel = await own(c);
    await deleteChannel({ ctx: c.var.ctx, input: { id: channel.id } });
    return c.redirect(`${BASE}?notice=removed`, 303);
  });

  return app;
}
