/** @jsxImportSource hono/jsx */
// An agent's page, "Try the agent": talk to it through the microphone (a web call, which shows in
// Calls and is metered like any) or chat with it (the widget's chat, stored nowhere). The script is
// widget/src/agent-console.ts (AGENT_CONSOLE_JS); without it the panel says it needs JavaScript.
import type { FC } from "hono/jsx";
import type { Agent } from "../../agents/service";
import type { ListedVersion } from "../../agents/versions";
import { AGENT_CONSOLE_JS } from "../ui/assets/built";
import { InlineScript } from "../ui/layout";
import { versionName } from "./versions";

/**
 * The versions the panel offers: the live one first (sent as empty), then the others listed, newest
 * first. The newest draft is chosen when there is one: it is what the form above shows and edits.
 */
const VersionChoice: FC<{ agent: Agent; versions: ListedVersion[] }> = ({ agent, versions }) => (
  <p>
    <label for="try-version">Version</label>
    <select id="try-version" data-try-version="">
      <option value="">Live version ({agent.liveVersion})</option>
      {versions
        .filter((v) => v.version !== agent.liveVersion)
        .map((v) => (
          <option value={String(v.version)} selected={v.version === agent.latestVersion && agent.latestVersion > agent.liveVersion}>
            {versionName(agent, v.version)}
          </option>
        ))}
    </select>
  </p>
);

export const TryPanel: FC<{ agent: Agent; versions: ListedVersion[]; csrf: string; nonce: string }> = ({
  agent,
  versions,
  csrf,
  nonce,
}) => (
  <section class="card try" aria-labelledby="try-heading" data-agent-console data-agent={agent.id} data-csrf={csrf}>
    <h2 id="try-heading" class="mt0">
      Try the agent
    </h2>
    <p class="small muted">
      As saved: save the form first to try a change, or save it as a draft (the newest draft is chosen below). A call through the microphone
      is a web call (it shows in Calls, with its recording and costs); the chat answers as the widget's would and is not stored.
    </p>
    <VersionChoice agent={agent} versions={versions} />
    <noscript>
      <p>Talking to the agent needs JavaScript.</p>
    </noscript>
    <div class="grid2">
      <div>
        <h3>Talk</h3>
        <div class="talk-controls">
          <button type="button" data-talk-start>
            Start call
          </button>
          <button type="button" class="secondary" data-talk-mute aria-pressed="false" hidden>
            Mute
          </button>
          <button type="button" class="danger" data-talk-hangup hidden>
            Hang up
          </button>
          <label class="small">
            Microphone{" "}
            <meter data-talk-level min="0" max="1" value="0">
              level
            </meter>
          </label>
        </div>
        <p role="status" data-talk-status>
          Not connected.
        </p>
        <ol class="live-transcript" aria-label="Call transcript" aria-live="polite" data-talk-transcript />
        <a data-talk-call href="/dashboard/calls" hidden>
          Open this call
        </a>
      </div>
      <div>
        <h3>Chat</h3>
        <ol class="live-transcript" aria-label="Chat transcript" aria-live="polite" data-chat-transcript />
        <form data-chat-form>
          <label for="try-message">Message to the agent</label>
          <textarea id="try-message" name="message" rows={2} maxlength={2000} />
          <p class="row">
            <button type="submit">Send</button>
            <button type="button" class="secondary" data-chat-restart>
              Start over
            </button>
          </p>
        </form>
      </div>
    </div>
    <InlineScript nonce={nonce} js={AGENT_CONSOLE_JS} />
  </section>
);
