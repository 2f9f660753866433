// An agent's form in Chromium: the tool builder (parameters added as rows, allowed values offered for
// text only, the JSON Schema view following the rows and turned back into rows, a tool saved as a
// draft and then published, opened and edited), the voice sample following the voice chosen and
// played, on the form and on the Voices page, and the header's buttons on one line at 1280 and 390 px.
// No console error and no CSP violation on any of it.
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ALLOY_VOICE_ID } from "../../../src/voices/service";
import { consoleErrors, hasBrowser, launchBrowser, overflow, screenshot, signInPage, takeCspViolations } from "../../support/browser";
import { createAgent } from "../../support/calls";
import { baseUrl, createWorkspace, json, testDb, type Workspace } from "../../support/harness";

const ECHO_VOICE_ID = "00000000-0000-7000-8000-000000000004";

let browser: Browser;
beforeAll(async () => {
  // The samples are played from a script (no click on the player's own controls).
  if (hasBrowser) browser = await launchBrowser(["--autoplay-policy=no-user-gesture-required"]);
});
afterAll(async () => {
  await browser?.close();
});
afterEach(() => {
  expect(takeCspViolations()).toEqual([]);
});

interface AgentOut {
  tools: Array<{ name?: string; type: string; url?: string; parameters?: unknown }>;
  liveVersion: number;
  latestVersion: number;
}

/** The page's textarea's value (what the browser would post). */
const fieldValue = (page: Page, selector: string) => page.locator(selector).inputValue();

/** Plays the page's `index`th sample player and answers what its source answered. */
async function play(page: Page, index = 0): Promise<{ url: string; status: number; type: string }> {
  const audio = page.locator("audio.voice-sample").nth(index);
  const [response] = await Promise.all([
    page.waitForResponse((r) => /\/dashboard\/voices\/[0-9a-f-]{36}\/sample$/.test(r.url())),
    audio.evaluate((el) => (el as unknown as { play(): Promise<void> }).play().catch(() => undefined)),
  ]);
  return { url: new URL(response.url()).pathname, status: response.status(), type: response.headers()["content-type"] ?? "" };
}

describe.runIf(hasBrowser)("an agent's form in Chromium", () => {
  let ws: Workspace;
  beforeAll(async () => {
    ws = await createWorkspace("Agent form in Chromium");
  });

  it("builds a tool with parameter rows, keeps the JSON view in step, saves it as a draft, publishes it and edits it", async () => {
    const agent = await createAgent(ws, { name: "Builder desk" });
    const page = await signInPage(browser, ws.admin.email, ws.admin.password, 1280);
    const errors = consoleErrors(page);
    await page.goto(`${baseUrl()}/dashboard/agents/${agent.id}#tools`);
    const builder = page.locator("form[data-tool-builder]");
    await builder.getByLabel("Name", { exact: true }).fill("lookup_order");
    await builder.getByLabel("URL (your server)").fill("https://tools.example.com/order");
    await builder.getByLabel("Description", { exact: true }).fill("Looks up an order by its number.");

    // The first row, then two more from "Add a parameter"; allowed values are offered for text only.
    await builder.getByLabel("Parameter 1 Name").fill("orderId");
    await builder.getByLabel("Parameter 1 Description").fill("The order number");
    await builder.getByLabel("Parameter 1 Required").check();
    await builder.getByRole("button", { name: "Add a parameter" }).click();
    await builder.getByLabel("Parameter 2 Name").fill("size");
    await builder.getByLabel("Parameter 2 Allowed values (text)").fill("small, large");
    await builder.getByRole("button", { name: "Add a parameter" }).click();
    await builder.getByLabel("Parameter 3 Name").fill("count");
    await builder.getByLabel("Parameter 3 Type").selectOption("integer");
    expect(await builder.getByLabel("Parameter 3 Allowed values (text)").isVisible()).toBe(false);
    expect(await builder.getByLabel("Parameter 2 Allowed values (text)").isVisible()).toBe(true);
    const schema = {
      type: "object",
      properties: {
        orderId: { type: "string", description: "The order number" },
        size: { type: "string", enum: ["small", "large"] },
        count: { type: "integer" },
      },
      required: ["orderId"],
    };
    // The advanced view shows the schema the rows make, as they are typed.
    await builder.getByText("Advanced: the parameters as JSON Schema").click();
    await expect.poll(async () => JSON.parse((await fieldValue(page, "#f-toolParameters")) || "null")).toEqual(schema);
    await screenshot(page, "agent-tool-builder");

    // Saved as a draft: the live version has no tool; the newest version has it.
    await builder.getByRole("button", { name: "Save as draft" }).click();
    await page.waitForURL(/\?saved=draft#tools$/);
    const drafted = await json<AgentOut>(await ws.api(`/v1/agents/${agent.id}`));
    expect(drafted).toMatchObject({ liveVersion: 1, latestVersion: 2, tools: [] });
    const draft = await json<{ config: AgentOut }>(await ws.api(`/v1/agents/${agent.id}/versions/2`));
    expect(draft.config.tools).toMatchObject([{ name: "lookup_order", parameters: schema }]);
    page.once("dialog", (d) => void d.accept());
    await page.getByRole("button", { name: "Publish", exact: true }).click();
    await expect.poll(async () => (await json<AgentOut>(await ws.api(`/v1/agents/${agent.id}`))).liveVersion).toBe(2);

    // Opened again: the rows as saved (in the order the database keeps an object's keys: JSON objects
    // have none). A row removed (the others renumbered), the JSON ticked and unticked (back to rows).
    await page.goto(`${baseUrl()}/dashboard/agents/${agent.id}`);
    await page.getByRole("link", { name: "Edit lookup_order" }).click();
    await page.waitForURL(/\?tool=lookup_order#tools$/);
    expect(await builder.getByRole("heading", { name: "Edit the tool lookup_order" }).count()).toBe(1);
    const names = () =>
      builder
        .locator("fieldset[data-param-row] input[name$='.name']")
        .evaluateAll((els) => els.map((el) => (el as unknown as { value: string }).value));
    const shown = await names();
    expect(shown.filter(Boolean).sort()).toEqual(["count", "orderId", "size"]);
    expect(shown.at(-1)).toBe(""); // and a blank row to add one
    expect(await builder.getByLabel(`Parameter ${shown.indexOf("orderId") + 1} Required`).isChecked()).toBe(true);
    await builder.getByRole("button", { name: `Remove parameter ${shown.indexOf("size") + 1}` }).click();
    const kept = shown.filter((n) => n !== "size");
    expect(await names()).toEqual(kept);
    expect(await builder.locator("fieldset[data-param-row] input[name$='.name']").last().getAttribute("name")).toBe(
      `param.${kept.length - 1}.name`,
    );
    await builder.getByText("Advanced: the parameters as JSON Schema").click();
    const useJson = builder.getByLabel("Save this JSON Schema instead of the rows above");
    await useJson.check();
    expect(await builder.getByLabel("Parameter 1 Name").isDisabled()).toBe(true);
    await useJson.uncheck();
    expect(await names()).toEqual(kept);
    // A schema the rows cannot say stays JSON, and the page says why.
    await builder.getByLabel("Parameters (JSON Schema)").fill('{"type":"object","properties":{"ids":{"type":"array"}}}');
    expect(await useJson.isChecked()).toBe(true);
    await useJson.click(); // unticked, and ticked again by the page
    expect(await useJson.isChecked()).toBe(true);
    expect(await builder.getByText("These parameters use more of JSON Schema than the rows can show").isVisible()).toBe(true);
    await builder
      .getByLabel("Parameters (JSON Schema)")
      .fill(JSON.stringify({ type: "object", properties: { count: { type: "integer" } } }));
    await useJson.uncheck();
    expect(await builder.getByLabel("Parameter 1 Name").inputValue()).toBe("count");
    await builder.getByLabel("URL (your server)").fill("https://tools.example.com/orders/v2");
    await builder.getByRole("button", { name: "Save and publish" }).click();
    await page.waitForURL(/\?saved=1#tools$/);
    const edited = await json<AgentOut>(await ws.api(`/v1/agents/${agent.id}`));
    expect(edited.liveVersion).toBe(3);
    expect(edited.tools).toMatchObject([
      {
        name: "lookup_order",
        url: "https://tools.example.com/orders/v2",
        parameters: { type: "object", properties: { count: { type: "integer" } } },
      },
    ]);
    expect(errors).toEqual([]);
    await page.close();
  }, 90_000);

  it("plays the voice chosen on the form, before it is saved, and each voice on the Voices page", async () => {
    const agent = await createAgent(ws, { name: "Voice desk", voiceId: ALLOY_VOICE_ID });
    const page = await signInPage(browser, ws.admin.email, ws.admin.password, 390);
    const errors = consoleErrors(page);
    await page.goto(`${baseUrl()}/dashboard/agents/${agent.id}`);
    const sample = page.locator("[data-voice-sample]");
    expect(await sample.locator("audio").getAttribute("src")).toBe(`/dashboard/voices/${ALLOY_VOICE_ID}/sample`);
    await page.getByLabel("Voice", { exact: true }).selectOption(ECHO_VOICE_ID);
    expect(await sample.locator("[data-voice-name]").textContent()).toBe("Echo");
    expect(await sample.locator("audio").getAttribute("src")).toBe(`/dashboard/voices/${ECHO_VOICE_ID}/sample`);
    expect(await sample.locator("audio").getAttribute("aria-label")).toBe("Echo: a sample");
    const heard = await play(page);
    expect(heard).toEqual({ url: `/dashboard/voices/${ECHO_VOICE_ID}/sample`, status: 200, type: "audio/wav" });
    // "Platform default" plays the default voice (the deployment's: which one depends on its providers).
    const fallback = (await sample.getAttribute("data-default-id")) ?? "";
    expect(fallback).toMatch(/^[0-9a-f-]{36}$/);
    await page.getByLabel("Voice", { exact: true }).selectOption("");
    expect(await sample.locator("audio").getAttribute("src")).toBe(`/dashboard/voices/${fallback}/sample`);
    // Nothing was saved.
    expect((await json<{ voiceId: string }>(await ws.api(`/v1/agents/${agent.id}`))).voiceId).toBe(ALLOY_VOICE_ID);

    await page.goto(`${baseUrl()}/dashboard/voices`);
    const listed = await play(page, 1);
    expect(listed.status).toBe(200);
    expect(listed.type).toMatch(/^audio\//);
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it("lines up the header's buttons (same top, same height) at 1280 and 390 px, with the organization switcher too", async () => {
    const agent = await createAgent(ws, { name: "Header desk" });
    const second = await createWorkspace("Header, second org");
    const { addMember } = await import("../../../src/organizations/service");
    const pages = ["/dashboard/agents", `/dashboard/agents/${agent.id}`, "/dashboard/voices", "/dashboard/knowledge"];
    const boxes = async (page: Page) =>
      page.locator("header.top button, header.top a.button").evaluateAll((els) =>
        els.map((el) => {
          const r = el.getBoundingClientRect();
          return { text: (el.textContent ?? "").trim(), top: Math.round(r.top), height: Math.round(r.height) };
        }),
      );
    for (const multi of [false, true]) {
      if (multi)
        await addMember({ ctx: { db: testDb(), organizationId: second.organizationId }, input: { email: ws.admin.email, role: "admin" } });
      for (const width of [1280, 390]) {
        const page = await signInPage(browser, ws.admin.email, ws.admin.password, width);
        for (const path of pages) {
          await page.goto(`${baseUrl()}${path}`);
          if (path === "/dashboard/agents") await screenshot(page, `header-${width}${multi ? "-orgs" : ""}`);
          const found = await boxes(page);
          const where = `${path} at ${width} px${multi ? ", two organizations" : ""}: ${JSON.stringify(found)}`;
          expect(found.length, where).toBeGreaterThanOrEqual(multi ? 3 : 2);
          expect(new Set(found.map((b) => b.top)).size, where).toBe(1);
          expect(new Set(found.map((b) => b.height)).size, where).toBe(1);
          expect(await overflow(page), where).toBeLessThanOrEqual(0);
        }
        await page.close();
      }
    }
  }, 90_000);
});
