// The exports of built.js, which ./build.ts generates from this folder (gitignored): each a
// minified stylesheet or script that the pages inline with the response's CSP nonce.

/** dashboard.css: the shell and the UI kit, on every page. */
export declare const DASHBOARD_CSS: string;
/** dashboard.ts: copy buttons and confirmations, on every page. */
export declare const DASHBOARD_JS: string;
/** calls.css: a call's page (the latency waterfall of each agent reply). */
export declare const CALLS_CSS: string;
/** usage.css: the Usage screen's charts. */
export declare const USAGE_CSS: string;
/** webhooks.css: the Webhooks screens. */
export declare const WEBHOOKS_CSS: string;
/** webhook-form.ts: the endpoint form's channels, events and live payload preview (with src/webhooks/payload.ts). */
export declare const WEBHOOK_FORM_JS: string;
/** agents.css: the agent pages (the "Try the agent" panel, the form's folded parts). */
export declare const AGENTS_CSS: string;
/** widget/src/agent-console.ts: the "Try the agent" panel's web call and test chat. */
export declare const AGENT_CONSOLE_JS: string;
/** overview.css: the Overview screen (/dashboard). */
export declare const OVERVIEW_CSS: string;
/** widget/src/call-page.ts: a call's page (play the recording from a turn, follow a live call). */
export declare const CALL_PAGE_JS: string;
/** widgets.css: a widget's page (the form beside the live preview's stage). */
export declare const WIDGETS_CSS: string;
/** widget/src/widget-preview.ts: a widget's page, the form's values handed to the previewed widget.js as they are typed. */
export declare const WIDGET_PREVIEW_JS: string;
/** knowledge.css: a knowledge base's page (documents' progress, the add forms, the passages a question finds). */
export declare const KNOWLEDGE_CSS: string;
/** widget/src/knowledge-page.ts: a knowledge base's page (upload progress, documents followed while processed, the test question in place). */
export declare const KNOWLEDGE_PAGE_JS: string;
/** campaigns.css: the Campaigns screens (progress bars, counts per state, the new campaign form, the recipients). */
export declare const CAMPAIGNS_CSS: string;
/** widget/src/campaign-page.ts: a campaign's page, followed while it runs (status, counts, bar, the rows shown). */
export declare const CAMPAIGN_PAGE_JS: string;
/** widget/src/agent-tests-page.ts: an agent's Tests page, its results followed while runs are queued or running. */
export declare const AGENT_TESTS_PAGE_JS: string;
/** widget/src/test-run-page.ts: a test run's or a replay's page, followed while it is queued or running. */
export declare const TEST_RUN_PAGE_JS: string;
/** widget/src/agent-form.ts: an agent's form (the voice sample follows the select; the tool builder's parameter rows and their JSON view). */
export declare const AGENT_FORM_JS: string;
