// The Chats screen's search by message text: widget chats made through the widget's public route
// (the agent answers each message: the provider sandbox echoes it, "You said: …"), found by words of
// the end user's or the agent's messages, case-insensitively and beyond ASCII, with LIKE's `%`, `_`
// and `\` taken literally, never another workspace's chat; each row shows the message that matched
// with the term marked (and escaped), and pages as the list does. The list's other filters:
// chats.test.ts.
import { describe, expect, it } from "vitest";
import type { ChatTurn } from "../../../src/db/schema";
import { createAgent } from "../../support/calls";
import { createWorkspace, request, signIn, type Workspace } from "../../support/harness";
import { createWidget, visitor } from "../../support/widgets";
import { insertChannel, insertSession, widgetChat } from "../chats/helpers";

async function pagesAs(ws: Workspace) {
  const { cookie } = await signIn(ws.admin.email, ws.admin.password);
  return async (path: string) => {
    const res = await request(path, { headers: { cookie } });
    return { status: res.status, html: await res.text() };
  };
}

/** The chats a list page links to, in its order. */
const linked = (html: string) => [...html.matchAll(/<a href="\/dashboard\/chats\/([0-9a-f-]{36})">/g)].map((m) => m[1]);
const searched = (term: string, extra = "") => `/dashboard/chats?search=${encodeURIComponent(term)}${extra}`;

describe("searching chats by message text", () => {
  it("finds the chats whose messages have the term, literally and in any case, shows where, and never another workspace's", async () => {
    const ws = await createWorkspace("Chats message search");
    const agent = await createAgent(ws, { name: "Desk" });
    const widget = await createWidget(ws, { agentId: agent.id });
    const say = (...messages: string[]) => widgetChat(widget.token, visitor(), messages);
    const discount = await say("Hello", "Is there a 50% discount on <b>cleaning</b>?");
    const fifty = await say("I have 500 points and a 5x0 coupon");
    const munich = await say("Grüße aus MÜNCHEN, ich möchte einen Termin");
    const tuesday = await say("予約を火曜日に変更したい");
    const windows = await say("My files are in C:\\temp\\notes");
    const other = await createWorkspace("Chats message search, other");
    const theirs = await createWidget(other);
    await widgetChat(theirs.token, visitor(), ["Grüße aus München, 50% bitte, C:\\temp\\notes"]);
    const page = await pagesAs(ws);

    // LIKE's wildcards are text: "50%" is not "50…" (500 points), "5_0" is not "5x0", and "\t" is a backslash and a t.
    expect(linked((await page(searched("50%"))).html)).toEqual([discount]);
    expect(linked((await page(searched("5_0"))).html)).toEqual([]);
    expect(linked((await page(searched("5x0"))).html)).toEqual([fifty]);
    expect(linked((await page(searched("%"))).html)).toEqual([discount]);
    expect(linked((await page(searched("C:\\temp\\"))).html)).toEqual([windows]);
    expect(linked((await page(searched("C:temp"))).html)).toEqual([]);
    // Case-insensitive beyond ASCII, and in scripts without case.
    const found = await page(searched("münchen"));
    expect(linked(found.html)).toEqual([munich]);
    expect(found.html).toContain(
      '<span class="preview"><span class="muted">End user: </span>Grüße aus <mark>MÜNCHEN</mark>, ich möchte einen Termin</span>',
    );
    expect(found.html).toContain('<th scope="col">Message</th>');
    expect(linked((await page(searched("火曜日"))).html)).toEqual([tuesday]);
    expect((await page(searched("火曜日"))).html).toContain("予約を<mark>火曜日</mark>に変更したい");
    // A message's markup is text on the page, the mark around the term the only element added.
    const escaped = (await page(searched("CLEANING"))).html;
    expect(escaped).toContain("Is there a 50% discount on &lt;b&gt;<mark>cleaning</mark>&lt;/b&gt;?");
    // The agent's messages too (the sandbox echoes each message: "You said: …"), newest chat first.
    const agentSide = await page(searched("you SAID: is there"));
    expect(linked(agentSide.html)).toEqual([discount]);
    expect(agentSide.html).toContain('<span class="muted">Agent: </span><mark>You said: Is there</mark> a 50% discount');
    expect(linked((await page(searched("you said"))).html)).toEqual([windows, tuesday, munich, fifty, discount]);
    // Another workspace's chat, whose message has every term above, is never found; nor is anything by a term no message has.
    expect(linked((await page(searched("bitte"))).html)).toEqual([]);
    expect((await page(searched("nowhere at all"))).html).toContain("No chats match these filters.");
    // The search combines with the other filters.
    expect(linked((await page(searched("you said", "&status=completed"))).html)).toEqual([]);
    // Without a search the column is the first message, as before.
    expect((await page("/dashboard/chats")).html).toContain('<th scope="col">First message</th>');
  }, 60_000);

  it("pages the chats it finds, keeping the search; a search over 200 characters is a 400", async () => {
    const ws = await createWorkspace("Chats message search, paging");
    const agent = await createAgent(ws);
    const channel = await insertChannel(ws, agent.id, "telegram");
    const at = new Date().toISOString();
    const turns = (text: string): ChatTurn[] => [
      { role: "user", text, at, kind: "text" },
      { role: "agent", text: "Noted.", at },
    ];
    const ids: string[] = [];
    for (let i = 0; i < 51; i++) ids.unshift((await insertSession(ws, { channel, transcript: turns(`Order ${i}: ünïcödé parcel`) })).id);
    await insertSession(ws, { channel, transcript: turns("Something else entirely") });
    const page = await pagesAs(ws);

    const first = await page(searched("ÜNÏCÖDÉ PARCEL"));
    expect(linked(first.html)).toEqual(ids.slice(0, 50));
    const older = /<a href="([^"]+)">Older chats<\/a>/.exec(first.html)?.[1]?.replace(/&amp;/g, "&") ?? "";
    expect(older).toMatch(/^\/dashboard\/chats\?search=%C3%9CN%C3%8FC%C3%96D%C3%89\+PARCEL&cursor=[A-Za-z0-9_-]+$/);
    const second = await page(older);
    expect(linked(second.html)).toEqual(ids.slice(50));
    expect(second.html).toContain("Order 0: <mark>ünïcödé parcel</mark>");

    const long = await page(searched("ü".repeat(201)));
    expect(long.status).toBe(400);
    expect(long.html).toContain("Invalid query: search: The search is at most 200 characters.");
    expect((await page(searched("ü".repeat(200)))).status).toBe(200);
  }, 60_000);
});
