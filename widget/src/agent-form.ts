// An agent's form page (src/dashboard/agents/views.tsx and tools.tsx): the voice sample follows the
// voice chosen, before it is saved; the tool builder adds and removes parameter rows, shows the
// allowed values for text parameters only, and keeps the advanced JSON Schema view in step with the
// rows (the same functions as the server: src/dashboard/agents/tool-params.ts), and back: unticking
// "use the JSON" turns a schema the rows can say into rows. Every form works without it. Not part of
// widget.js: the dashboard's asset build bundles it, typechecked here with the browser's DOM types.
import { MAX_PARAMS, type ParamRow, rowsOfSchema, schemaOfRows } from "../../src/dashboard/agents/tool-params";

followVoice();
buildTools();

/** The sample player plays the voice the select names ("" is the platform's default). */
function followVoice(): void {
  const select = document.querySelector<HTMLSelectElement>("select[name=voiceId]");
  const sample = document.querySelector<HTMLElement>("[data-voice-sample]");
  const audio = sample?.querySelector("audio");
  const name = sample?.querySelector<HTMLElement>("[data-voice-name]");
  if (!select || !sample || !audio || !name) return;
  select.addEventListener("change", () => {
    const chosen = select.value;
    const id = chosen || sample.dataset.defaultId || "";
    // An option reads "Alloy (openai, system)": the name is before the parenthesis.
    const label = chosen ? (select.selectedOptions[0]?.textContent ?? "").replace(/ \([^()]*\)$/, "") : (sample.dataset.defaultName ?? "");
    audio.pause();
    if (id) audio.src = `/dashboard/voices/${id}/sample`;
    else audio.removeAttribute("src");
    audio.setAttribute("aria-label", `${label || "A voice"}: a sample`);
    name.textContent = label;
    sample.hidden = !id;
  });
}

function buildTools(): void {
  const form = document.querySelector<HTMLFormElement>("form[data-tool-builder]");
  const box = form?.querySelector<HTMLFieldSetElement>("[data-param-rows]");
  const template = form?.querySelector<HTMLTemplateElement>("template[data-param-template]");
  const add = form?.querySelector<HTMLButtonElement>("[data-param-add]");
  const asJson = form?.querySelector<HTMLInputElement>("input[name=toolParamsAsJson]");
  const json = form?.querySelector<HTMLTextAreaElement>("textarea[name=toolParameters]");
  const note = form?.querySelector<HTMLElement>("[data-param-json-note]");
  if (!form || !box || !template || !add || !asJson || !json || !note) return;

  const rows = () => [...box.querySelectorAll<HTMLFieldSetElement>("fieldset[data-param-row]")];
  const control = <T extends HTMLElement>(row: HTMLElement, field: string) => row.querySelector<T>(`[name$=".${field}"]`) as T;
  const valuesOf = (row: HTMLElement): ParamRow => ({
    name: control<HTMLInputElement>(row, "name").value,
    type: control<HTMLSelectElement>(row, "type").value,
    description: control<HTMLInputElement>(row, "description").value,
    required: control<HTMLInputElement>(row, "required").checked,
    choices: control<HTMLInputElement>(row, "choices").value,
  });

  /** The JSON view shows what the rows make (left as it is while a row is incomplete). */
  const sync = () => {
    if (asJson.checked) return;
    const made = schemaOfRows(rows().map(valuesOf));
    if (Object.keys(made.errors).length === 0) json.value = made.schema ? JSON.stringify(made.schema, null, 2) : "";
  };

  /** Names, ids and labels follow the rows' order (the server reads param.0 to param.29). */
  const renumber = () => {
    rows().forEach((row, i) => {
      for (const el of row.querySelectorAll<HTMLElement>("[name],[id],[for],[aria-describedby]")) {
        for (const attr of ["name", "id", "for", "aria-describedby"]) {
          const value = el.getAttribute(attr);
          if (value) el.setAttribute(attr, value.replace(/param\.\d+\./g, `param.${i}.`).replace(/f-param-\d+-/g, `f-param-${i}-`));
        }
      }
      for (const sr of row.querySelectorAll<HTMLElement>(".sr")) sr.textContent = `Parameter ${i + 1} `;
      const legend = row.querySelector("legend");
      if (legend) legend.textContent = `Parameter ${i + 1}`;
      row.querySelector("[data-param-remove]")?.setAttribute("aria-label", `Remove parameter ${i + 1}`);
    });
    add.disabled = rows().length >= MAX_PARAMS;
  };

  const wire = (row: HTMLElement) => {
    const choices = row.querySelector<HTMLElement>("[data-param-choices]");
    if (choices) choices.hidden = control<HTMLSelectElement>(row, "type").value !== "string";
    const remove = row.querySelector<HTMLButtonElement>("[data-param-remove]");
    if (remove) remove.hidden = false;
  };

  const addRow = (values?: ParamRow): HTMLFieldSetElement => {
    const i = rows().length;
    const holder = document.createElement("div");
    holder.innerHTML = template.innerHTML.replace(/__i__/g, String(i)).replace(/__n__/g, String(i + 1));
    const row = holder.querySelector<HTMLFieldSetElement>("fieldset[data-param-row]") as HTMLFieldSetElement;
    if (values) {
      control<HTMLInputElement>(row, "name").value = values.name;
      control<HTMLSelectElement>(row, "type").value = values.type;
      control<HTMLInputElement>(row, "description").value = values.description;
      control<HTMLInputElement>(row, "required").checked = values.required;
      control<HTMLInputElement>(row, "choices").value = values.choices;
    }
    add.before(row);
    wire(row);
    return row;
  };

  for (const row of rows()) wire(row);
  add.hidden = false;
  renumber();
  box.disabled = asJson.checked;

  add.addEventListener("click", () => {
    const row = addRow();
    renumber();
    control<HTMLInputElement>(row, "name").focus();
  });
  box.addEventListener("click", (event) => {
    const remove = (event.target as HTMLElement).closest("[data-param-remove]");
    const row = remove?.closest<HTMLElement>("fieldset[data-param-row]");
    if (!row) return;
    row.remove();
    if (rows().length === 0) addRow();
    renumber();
    sync();
    add.focus();
  });
  box.addEventListener("input", sync);
  box.addEventListener("change", (event) => {
    const target = event.target as HTMLElement;
    const row = target.closest<HTMLElement>("fieldset[data-param-row]");
    if (row && target instanceof HTMLSelectElement) wire(row);
    sync();
  });
  // Typing JSON means the JSON is what is saved.
  json.addEventListener("input", () => {
    if (asJson.checked) return;
    asJson.checked = true;
    box.disabled = true;
  });
  asJson.addEventListener("change", () => {
    note.hidden = true;
    if (asJson.checked) {
      box.disabled = true;
      return;
    }
    let schema: unknown;
    try {
      schema = json.value.trim() === "" ? undefined : JSON.parse(json.value);
    } catch {
      schema = null;
    }
    const parsed = schema === null ? null : rowsOfSchema(schema);
    if (parsed === null) {
      // Not something the rows can say: it stays the JSON.
      asJson.checked = true;
      note.hidden = false;
      return;
    }
    for (const row of rows()) row.remove();
    for (const values of parsed) addRow(values);
    addRow();
    renumber();
    box.disabled = false;
  });
}
