// The embeddable widget (docs/widget.md). A page adds one tag:
//   <script src="https://…/widget.js" data-service-token="wgt_…" async></script>
// and gets a launcher button that opens a chat (and/or voice) panel with the agent. Everything
// lives in a shadow root (no style leaks either way); the only global is `window.ServiceWidget`.
// When the token is wrong or the page's origin is not allowed, nothing is rendered: one console
// warning says why.
//
// The dashboard's live preview loads this same script with `data-service-preview="<widget id>"`
// instead of a token (authorised by the dashboard's session on the dashboard's own origin) and
// `data-service-container="<element id>"` (where the host element goes; else the end of <body>).
// Each widget, once shown, is announced with a `service-widget:ready` event on window (its detail
// the widget, whose `configure()` changes its look).
import { Api, type Credential, type WidgetConfig, type WidgetError } from "./api";
import { visitorId } from "./storage";
import { PREFIX, Widget } from "./widget";

const VERSION = "1.1.0";

interface Namespace {
  version: string;
  widgets: Widget[];
  open(): void;
  close(): void;
}

declare global {
  interface Window {
    ServiceWidget?: Namespace;
  }
}

function credentialOf(script: HTMLScriptElement): Credential | null {
  const preview = script.getAttribute("data-service-preview")?.trim();
  if (preview) return { preview };
  const token = script.getAttribute("data-service-token")?.trim();
  return token ? { token } : null;
}

async function boot(script: HTMLScriptElement): Promise<void> {
  const credential = credentialOf(script);
  if (!credential) {
    console.warn(`${PREFIX} the script tag has no data-service-token: nothing to show.`);
    return;
  }
  let base: string;
  try {
    base = new URL(script.src).origin;
  } catch {
    return;
  }
  const api = new Api(base, credential);
  let config: WidgetConfig;
  try {
    config = await api.config();
  } catch (err) {
    const e = err as WidgetError;
    // Quiet on the page, clear in the console.
    console.warn(`${PREFIX} not shown (${e.status || "network"} ${e.code}): ${e.message}`);
    return;
  }
  const host = document.createElement("service-widget");
  // Inline !important beats the host page's stylesheets: the host element stays invisible to
  // layout. Set through the CSSOM, which a page's CSP allows (a `style` attribute it may refuse).
  for (const [property, value] of [
    ["all", "initial"],
    ["display", "block"],
    ["position", "static"],
  ]) {
    host.style.setProperty(property as string, value as string, "important");
  }
  const mount = () => {
    const container = script.getAttribute("data-service-container");
    (container ? (document.getElementById(container) ?? document.body) : document.body).append(host);
    const widget = new Widget(host, api, config, visitorId());
    namespace().widgets.push(widget);
    window.dispatchEvent(new CustomEvent("service-widget:ready", { detail: widget }));
  };
  if (document.body) mount();
  else document.addEventListener("DOMContentLoaded", mount, { once: true });
}

function namespace(): Namespace {
  if (!window.ServiceWidget) {
    const ns: Namespace = {
      version: VERSION,
      widgets: [],
      open: () => ns.widgets[0]?.open(),
      close: () => ns.widgets[0]?.close(),
    };
    window.ServiceWidget = ns;
  }
  return window.ServiceWidget;
}

namespace();
const booted = new WeakSet<HTMLScriptElement>();
const current = document.currentScript as HTMLScriptElement | null;
const scripts = current
  ? [current]
  : Array.from(document.querySelectorAll<HTMLScriptElement>("script[data-service-token], script[data-service-preview]"));
for (const script of scripts) {
  if (booted.has(script) || script.hasAttribute("data-service-widget-loaded")) continue;
  booted.add(script);
  script.setAttribute("data-service-widget-loaded", "");
  void boot(script);
}
