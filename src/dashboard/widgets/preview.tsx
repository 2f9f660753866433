/** @jsxImportSource hono/jsx */
// The live preview on a widget's page: the real widget.js, the file customer sites load, in its
// preview mode: named by id and authorised by this dashboard session (src/routes/widget/preview.ts),
// so the dashboard's origin never joins the widget's allowed origins. It sits in a stage that
// stands for the customer's page; widget/src/widget-preview.ts hands it the form's values as they
// are typed, before saving. Opened, it chats and talks with the agent like the real thing.
import type { FC } from "hono/jsx";
import type { Widget } from "../../widgets/service";
import { InlineScript, scriptJson } from "../ui";
import { WIDGET_PREVIEW_JS } from "../ui/assets/built";

/** What the preview shows for an empty title or greeting: the chosen agent's name and greeting. */
export type PreviewAgents = Record<string, { name: string; greeting: string | null }>;

export const STAGE_ID = "widget-preview-stage";

export const WidgetPreview: FC<{ nonce: string; widget: Widget; agents: PreviewAgents }> = ({ nonce, widget, agents }) => (
  <section class="card widget-preview" data-widget-preview="" data-agent={widget.agentId} aria-labelledby="widget-preview-title">
    <h2 class="mt0" id="widget-preview-title">
      Live preview
    </h2>
    <p class="hint">
      The widget as visitors see it, with the form's values before you save. Open it to chat or talk with the agent: these are real
      conversations, metered and listed under Chats, with their webhooks.
    </p>
    <p class="hint" data-preview-other-agent="" hidden>
      The preview talks to the saved agent until you save the new one.
    </p>
    <div class="widget-stage" id={STAGE_ID}>
      <p class="muted" data-preview-status="">
        Loading the preview…
      </p>
    </div>
    <InlineScript nonce={nonce} type="application/json" id="widget-preview-agents" js={scriptJson(agents)} />
    {/* `defer`, not `async`: hono/jsx would hoist an async script into <head>. */}
    <script src="/widget.js" data-service-preview={widget.id} data-service-container={STAGE_ID} nonce={nonce} defer />
    <InlineScript nonce={nonce} js={WIDGET_PREVIEW_JS} />
  </section>
);
