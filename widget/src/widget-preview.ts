// The live preview on a widget's dashboard page (src/dashboard/widgets/preview.tsx): the page
// loads the real widget.js in preview mode (`data-service-preview`, authorised by the dashboard
// session), and this script hands it the form's values as they are typed, before anything is
// saved: colours, position, title, greeting and mode. An empty title or greeting shows what the
// widget would show, the chosen agent's name or first message (the page lists them in
// #widget-preview-agents). Not part of widget.js: the dashboard's asset build bundles it
// (src/dashboard/ui/assets/build.ts), typechecked here with the browser's DOM types.
import type { Look, Widget } from "./widget";

interface AgentLook {
  name: string;
  greeting: string | null;
}

const COLOR = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i;
const COLOR_FIELDS = ["accent", "accentText", "background", "text"] as const;
const MODES: ReadonlyArray<Look["mode"]> = ["chat", "voice", "both"];
const POSITIONS: ReadonlyArray<Look["position"]> = ["bottom-right", "bottom-left"];

const section = document.querySelector<HTMLElement>("[data-widget-preview]");
const form = document.querySelector<HTMLFormElement>("form[data-widget-form]");
if (section && form) setUp(section, form);

function setUp(section: HTMLElement, form: HTMLFormElement): void {
  const agents = readAgents();
  const status = section.querySelector<HTMLElement>("[data-preview-status]");
  const otherAgent = section.querySelector<HTMLElement>("[data-preview-other-agent]");
  let widget: Widget | null = null;

  const field = (name: string): string => {
    const control = form.elements.namedItem(name);
    return control instanceof HTMLInputElement || control instanceof HTMLSelectElement || control instanceof HTMLTextAreaElement
      ? control.value
      : "";
  };

  /** The form's values as the widget would show them; a colour being typed keeps the last good one. */
  const lookOfForm = (current: Look): Partial<Look> => {
    const agent = agents[field("agentId")];
    const colors = { ...current.colors };
    for (const name of COLOR_FIELDS) {
      const value = field(name).trim();
      if (COLOR.test(value)) colors[name] = value;
    }
    const mode = MODES.find((m) => m === field("mode")) ?? current.mode;
    const position = POSITIONS.find((p) => p === field("position")) ?? current.position;
    return {
      mode,
      position,
      colors,
      title: field("title").trim() || agent?.name || current.title,
      greeting: field("greeting").trim() || (agent ? agent.greeting : current.greeting),
    };
  };

  const apply = () => {
    if (otherAgent) otherAgent.hidden = field("agentId") === (section.dataset.agent ?? "");
    if (widget) widget.configure(lookOfForm(widget.look));
  };

  const adopt = (shown: Widget) => {
    widget = shown;
    if (status) status.hidden = true;
    apply();
  };

  window.addEventListener("service-widget:ready", (event) => adopt((event as CustomEvent<Widget>).detail));
  const already = window.ServiceWidget?.widgets[0];
  if (already) adopt(already);
  form.addEventListener("input", apply);
  form.addEventListener("change", apply);
  apply();
}

function readAgents(): Record<string, AgentLook> {
  try {
    return JSON.parse(document.getElementById("widget-preview-agents")?.textContent ?? "{}") as Record<string, AgentLook>;
  } catch {
    return {};
  }
}
