// The webhook endpoint form's progressive enhancement (src/dashboard/webhooks/form.tsx): the
// channels show and hide their events, select all / deselect all, and the live payload preview.
// The preview shapes the Send Test sample (rendered into the page by the server) with the
// server's own `shapePayload`, bundled from src/webhooks/payload.ts. Without this script the
// form works the same and the server renders the preview.
import { type Payload, shapePayload } from "../../../webhooks/payload";
import { browser, type DomControl, type DomElement } from "./dom";

const { document } = browser;

function enhance(form: DomElement): void {
  const sample = JSON.parse(document.getElementById("payload-sample")?.textContent ?? "{}") as Payload;
  const customFields = document.getElementById("f-customFields");
  const builder = document.getElementById("payload-builder");
  const preview = document.getElementById("payload-preview");

  /** The values of the checked, enabled inputs named `name`. */
  const chosen = (name: string) =>
    Array.from(form.querySelectorAll<DomControl>(`input[name="${name}"]`))
      .filter((input) => input.checked && !input.disabled)
      .map((input) => input.value);

  /** Only the chosen channels' events can be picked (a disabled fieldset's inputs are not sent). */
  const showChannels = () => {
    const on = chosen("channels");
    form.querySelectorAll<DomControl>("fieldset[data-channel]").forEach((group) => {
      const show = on.includes(group.getAttribute("data-channel") ?? "");
      group.hidden = !show;
      group.disabled = !show;
    });
  };

  const showPreview = () => {
    const custom = form.querySelector<DomControl>('input[name="payloadMode"]:checked')?.value === "custom";
    if (customFields) customFields.hidden = !custom;
    builder?.classList.toggle("custom", custom);
    if (preview) preview.textContent = JSON.stringify(custom ? shapePayload(sample, chosen("customFields")) : sample, null, 2);
  };

  form.querySelectorAll("[data-events]").forEach((button) => {
    button.hidden = false;
    button.addEventListener("click", () => {
      const on = button.getAttribute("data-events") === "all";
      form.querySelectorAll<DomControl>('fieldset[data-channel]:not([disabled]) input[name="events"]').forEach((input) => {
        input.checked = on;
      });
    });
  });
  form.addEventListener("change", (event) => {
    const name = (event.target as DomControl | null)?.name;
    if (name === "channels") showChannels();
    if (name === "payloadMode" || name === "customFields") showPreview();
  });
  showChannels();
  showPreview();
}

const form = document.getElementById("endpoint-form");
if (form) enhance(form);
