// WhatsApp channels through the real worker and the WhatsApp sandbox (docs/messaging.md): Meta's
// verification handshake, a conversation end to end with both webhooks verified, voice notes,
// statuses ignored, the 24-hour window, and the refusals: forged or unsigned notifications, a
// redelivered notification, a wrong verify token, credentials Meta rejects.
import { createHmac } from "node:crypto";
import { count, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { chats, messagingInbound } from "../../../src/db/schema";
import { FIXED_REPLIES } from "../../../src/messaging/conversation";
import { createWorkspace, expectError, request, testDb, until } from "../../support/harness";
import { connectWhatsApp, createAgent, newNumber, VERIFY_TOKEN, whatsapp } from "../../support/messaging";
import { startReceiver } from "../../support/receiver";
import { stripeAccepts } from "../../support/stripe";
import { createEndpoint } from "../../support/webhooks";

let user = 41_700_000_000 + Math.floor(Math.random() * 1_000_000);
const nextUser = () => String(++user);

const sessionsOf = (channelId: string) => testDb().select().from(chats).where(eq(chats.channelId, channelId)).orderBy(chats.id);

const storedOf = async (channelId: string) =>
  (await testDb().select({ n: count() }).from(messagingInbound).where(eq(messagingInbound.channelId, channelId)))[0]?.n;

/** A notification as Meta sends it, signed with `appSecret` (or not). */
function notification(phoneNumberId: string, from: string, text: string, timestamp = Math.floor(Date.now() / 1000)) {
  const body = JSON.stringify({
    object: "whatsapp_business_account",
    entry: [
      {
        id: "1",
        changes: [
          {
            field: "messages",
            value: {
              messaging_product: "whatsapp",
              metadata: { display_phone_number: "15550001111", phone_number_id: phoneNumberId },
              contacts: [{ profile: { name: "Grace" }, wa_id: from }],
              messages: [{ from, id: `wamid.${crypto.randomUUID()}`, timestamp: String(timestamp), type: "text", text: { body: text } }],
            },
          },
        ],
      },
    ],
  });
  return { body, sign: (secret: string) => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}` };
}

describe("a WhatsApp conversation", () => {
  it("passes Meta's handshake, answers, ends on /end, and fires whatsapp.started and whatsapp.completed, signed", async () => {
    const ws = await createWorkspace();
    const receiver = await startReceiver();
    const endpoint = await createEndpoint(ws, {
      name: "wa",
      url: receiver.url,
      channels: ["chat"],
      events: ["whatsapp.started", "whatsapp.completed"],
    });
    const { number, channel, agentId } = await connectWhatsApp(ws);
    expect(channel).toMatchObject({
      type: "whatsapp",
      info: {
        phoneNumberId: number.phone_number_id,
        displayPhoneNumber: expect.stringContaining(number.display_phone_number.replace(/\D/g, "")),
      },
    });
    for (const secret of [number.access_token, number.app_secret, VERIFY_TOKEN]) expect(JSON.stringify(channel)).not.toContain(secret);

    const waId = nextUser();
    await whatsapp.send(number, waId, { text: "Hola, do you deliver on Sundays?", profile_name: "Grace" });
    const reply = await whatsapp.next(number, waId);
    expect(reply.text?.length).toBeGreaterThan(0);
    await whatsapp.send(number, waId, { voice: "Please book a table for four people." });
    await whatsapp.next(number, waId);
    await whatsapp.send(number, waId, { text: "/end" });
    expect((await whatsapp.next(number, waId)).text).toBe(FIXED_REPLIES.ended);

    const [session] = await until(
      () => sessionsOf(channel.id),
      (rows) => rows[0]?.status === "completed",
    );
    expect(session).toMatchObject({ endUserId: waId, endUserName: "Grace", agentId, endedReason: "user-ended", messageCount: 6 });
    expect(session?.transcript.filter((t) => t.role === "user").map((t) => [t.kind, t.text])).toEqual([
      ["text", "Hola, do you deliver on Sundays?"],
      ["voice", "Please book a table for four people."],
      ["text", "/end"],
    ]);
    const deliveries = await receiver.waitFor(2);
    expect(deliveries.map((d) => JSON.parse(d.body).event)).toEqual(["whatsapp.started", "whatsapp.completed"]);
    for (const d of deliveries)
      expect(stripeAccepts(d.body, String(d.headers["x-service-signature"]), endpoint.secret as string)).toBe(true);
    await receiver.stop();
  });

  it("answers a redelivered notification once, and ignores message statuses", async () => {
    const ws = await createWorkspace();
    const { number, channel } = await connectWhatsApp(ws);
    const waId = nextUser();
    const { notification_id } = await whatsapp.send(number, waId, { text: "Just once." });
    await whatsapp.next(number, waId);
    await whatsapp.redeliver(notification_id);
    await until(
      () => whatsapp.notifications(number),
      (all) => all.filter((n) => n.state === "delivered").length >= 3,
    );
    expect(await storedOf(channel.id)).toBe(1);
    // A conversation's messages are answered one at a time, oldest first (src/messaging/inbound.ts):
    // once a later message is answered, a second answer to the first would have come before it.
    await whatsapp.send(number, waId, { text: "And once more." });
    const [session] = await until(
      () => sessionsOf(channel.id),
      (rows) => (rows[0]?.messageCount ?? 0) >= 4,
    );
    expect(session?.transcript.map((t) => (t.role === "user" ? t.text : t.role))).toEqual([
      "Just once.",
      "agent",
      "And once more.",
      "agent",
    ]);
    const business = (await whatsapp.conversation(number, waId)).messages.filter((m) => m.direction === "outbound");
    expect(business).toHaveLength(2);
    expect(await storedOf(channel.id)).toBe(2);
  });

  it("keeps a message older than the 24-hour window and sends no free text", async () => {
    const ws = await createWorkspace();
    const { number, channel } = await connectWhatsApp(ws);
    const waId = nextUser();
    const late = notification(number.phone_number_id, waId, "Sent two days ago", Math.floor(Date.now() / 1000) - 2 * 86_400);
    const res = await request(`/channels/whatsapp/${channel.id}`, {
      method: "POST",
      body: late.body,
      headers: { "content-type": "application/json", "x-hub-signature-256": late.sign(number.app_secret) },
    });
    expect(res.status).toBe(200);
    const [session] = await until(
      () => sessionsOf(channel.id),
      (rows) => rows[0]?.messageCount === 1,
    );
    expect(session?.transcript.map((t) => [t.role, t.text])).toEqual([["user", "Sent two days ago"]]);
    // Answered one at a time, oldest first: once a message sent now has its answer, a reply to the
    // old one would have come before it.
    await whatsapp.send(number, waId, { text: "Are you open today?" });
    await whatsapp.next(number, waId);
    expect((await whatsapp.conversation(number, waId)).messages.filter((m) => m.direction === "outbound")).toHaveLength(1);
  });
});

describe("WhatsApp refusals", () => {
  it("answers the handshake only with the channel's verify token", async () => {
    const ws = await createWorkspace();
    const { channel } = await connectWhatsApp(ws);
    const ok = await request(
      `/channels/whatsapp/${channel.id}?hub.mode=subscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=1158201444`,
    );
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe("1158201444");
    await expectError(
      await request(`/channels/whatsapp/${channel.id}?hub.mode=subscribe&hub.verify_token=wrong-token&hub.challenge=1`),
      403,
      "forbidden",
    );
    await expectError(await request(`/channels/whatsapp/${channel.id}?hub.mode=subscribe&hub.challenge=1`), 403, "forbidden");
  });

  it("refuses notifications without, or with a wrong, signature, and stores nothing", async () => {
    const ws = await createWorkspace();
    const { number, channel } = await connectWhatsApp(ws);
    const forged = notification(number.phone_number_id, nextUser(), "forged");
    const post = (headers: Record<string, string>, body = forged.body) =>
      request(`/channels/whatsapp/${channel.id}`, { method: "POST", body, headers: { "content-type": "application/json", ...headers } });
    await expectError(await post({}), 401, "unauthorized");
    await expectError(await post({ "x-hub-signature-256": forged.sign("not-the-app-secret") }), 401, "unauthorized");
    // Signed, then altered: the signature covers the raw bytes.
    await expectError(
      await post({ "x-hub-signature-256": forged.sign(number.app_secret) }, forged.body.replace("forged", "F0rged")),
      401,
      "unauthorized",
    );
    expect(await storedOf(channel.id)).toBe(0);
  });

  it("refuses credentials Meta rejects, saving nothing", async () => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws);
    const number = await newNumber();
    const res = await ws.api("/v1/channels", {
      method: "POST",
      json: {
        type: "whatsapp",
        name: "x",
        agentId: agent.id,
        credentials: {
          phoneNumberId: number.phone_number_id,
          accessToken: `EAA${"x".repeat(40)}`,
          appSecret: number.app_secret,
          verifyToken: VERIFY_TOKEN,
        },
      },
    });
    await expectError(res, 400, "channel_credentials_rejected");
    expect(((await (await ws.api("/v1/channels")).json()) as { data: unknown[] }).data).toEqual([]);
  });
});
