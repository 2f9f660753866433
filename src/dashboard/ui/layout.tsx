/** @jsxImportSource hono/jsx */
// The dashboard's document and shell: the sidebar, the header (organization switcher, sign out),
// and the styles and script every page inlines with this response's CSP nonce (built from
// ./assets by the build; docs/dashboard.md).
import type { Context } from "hono";
import { raw } from "hono/html";
import type { Child, FC } from "hono/jsx";
import type { AppEnv } from "../../context";
import { DASHBOARD_CSS, DASHBOARD_JS } from "./assets/built";
import { Csrf } from "./fields";

export interface Shell {
  title: string;
  /** This response's CSP nonce: every inline script and style carries it. */
  nonce: string;
  active: string;
  user: { email: string };
  role: "admin" | "member";
  csrf: string;
  organizationId: string;
  organizations: Array<{ id: string; name: string; role: string }>;
}

/** This response's Content-Security-Policy nonce (the page policy in ../frame.tsx makes one per response). */
export const nonceOf = (c: Context<AppEnv>): string => c.get("secureHeadersNonce") ?? "";

/**
 * What every signed-in page needs for its shell, from the request's session (resolved once by the
 * page session middleware, workspace names included): no query here. Async for its callers' sake.
 */
export async function shellOf(c: Context<AppEnv>, title: string, active: string): Promise<Shell> {
  const auth = c.var.auth;
  return {
    title,
    nonce: nonceOf(c),
    active,
    user: { email: auth.user?.email ?? "" },
    role: auth.role,
    csrf: c.var.csrf,
    organizationId: auth.organizationId,
    organizations: (auth.memberships ?? []).map((m) => ({ id: m.organizationId, name: m.organizationName, role: m.role })),
  };
}

const NAV: Array<{ href: string; label: string; key: string; admin?: boolean; section?: string }> = [
  { href: "/dashboard", label: "Overview", key: "overview", section: "Build" },
  { href: "/dashboard/agents", label: "Agents", key: "agents" },
  { href: "/dashboard/voices", label: "Voices", key: "voices" },
  { href: "/dashboard/knowledge", label: "Knowledge", key: "knowledge" },
  { href: "/dashboard/phone-numbers", label: "Phone Numbers", key: "phone-numbers" },
  { href: "/dashboard/calls", label: "Calls", key: "calls" },
  { href: "/dashboard/campaigns", label: "Campaigns", key: "campaigns" },
  { href: "/dashboard/widgets", label: "Widgets", key: "widgets" },
  { href: "/dashboard/channels", label: "Channels", key: "channels" },
  { href: "/dashboard/chats", label: "Chats", key: "chats" },
  { href: "/dashboard/usage", label: "Usage", key: "usage" },
  { href: "/dashboard/api-keys", label: "API Keys", key: "api-keys", admin: true, section: "Settings" },
  { href: "/dashboard/webhooks", label: "Webhooks", key: "webhooks", admin: true },
  { href: "/dashboard/members", label: "Members", key: "members" },
];

/** An inline <style> allowed by the page's policy (its nonce). */
export const InlineStyle: FC<{ nonce: string; css: string }> = ({ nonce, css }) => (
  <style nonce={nonce} dangerouslySetInnerHTML={{ __html: css }} />
);

/** An inline <script> allowed by the page's policy (its nonce); `type="application/json"` for data. */
export const InlineScript: FC<{ nonce: string; js: string; id?: string; type?: string }> = ({ nonce, js, id, type }) => (
  <script nonce={nonce} id={id} type={type} dangerouslySetInnerHTML={{ __html: js }} />
);

/** JSON inside a <script> element: `<` escaped so the text can never close the element. */
export const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, "\\u003c");

/** `css`: the screen's own styles (an export of ./assets/built.js), after the shell's. */
/** The dashboard's icon: a sound wave on the accent colour (inline, so it needs no request and no route). */
const FAVICON = `data:image/svg+xml,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#3b5bdb"/><path d="M7 16h2M11 11v10M15 7v18M19 11v10M23 14v4" stroke="#fff" stroke-width="2.4" stroke-linecap="round"/></svg>',
)}`;

/** The page: standards mode (the doctype; without it a form keeps quirks mode's bottom margin), the icon, the styles. */
export const Document: FC<{ title: string; nonce: string; css?: string; children?: Child }> = ({ title, nonce, css, children }) => (
  <>
    {raw("<!DOCTYPE html>")}
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <link rel="icon" href={FAVICON} />
        <title>{title} · Dashboard</title>
        <InlineStyle nonce={nonce} css={DASHBOARD_CSS} />
        {css ? <InlineStyle nonce={nonce} css={css} /> : null}
      </head>
      <body>
        {children}
        <InlineScript nonce={nonce} js={DASHBOARD_JS} />
      </body>
    </html>
  </>
);

/**
 * Who is signed in, to which organization: a switcher when there are several. Its Switch button
 * sits with the header's other buttons (its `form` attribute ties it to the switcher's form), so
 * every button of the header lines up.
 */
const OrganizationSwitcher: FC<{ shell: Shell }> = ({ shell }) =>
  shell.organizations.length > 1 ? (
    <form method="post" action="/dashboard/switch-org" id="org-switch-form" class="row">
      <Csrf token={shell.csrf} />
      <label for="org-switch" class="m0 small">
        Organization
      </label>
      <select id="org-switch" name="organizationId" class="w-auto">
        {shell.organizations.map((o) => (
          <option value={o.id} selected={o.id === shell.organizationId}>
            {o.name} ({o.role})
          </option>
        ))}
      </select>
    </form>
  ) : (
    <span class="muted small">{shell.organizations[0]?.name}</span>
  );

/** A signed-in page: the sidebar, the header with `actions`, then the screen. */
export const Layout: FC<{ shell: Shell; css?: string; children?: Child; actions?: Child }> = ({ shell, css, children, actions }) => (
  <Document title={shell.title} nonce={shell.nonce} css={css}>
    <a class="skip" href="#main">
      Skip to content
    </a>
    <div class="shell">
      <nav class="side" aria-label="Dashboard">
        <div class="brand">Voice Agents</div>
        <div class="links">
          {NAV.map((item) => (
            <>
              {item.section ? <div class="section">{item.section}</div> : null}
              <a href={item.href} aria-current={shell.active === item.key ? "page" : undefined}>
                {item.label}
                {item.admin && shell.role !== "admin" ? " 🔒" : ""}
              </a>
            </>
          ))}
        </div>
      </nav>
      <main id="main">
        <header class="top">
          <h1>{shell.title}</h1>
          <div class="account">
            <div class="who">
              <OrganizationSwitcher shell={shell} />
              <span class="muted small email">{shell.user.email}</span>
            </div>
            <div class="header-buttons">
              {shell.organizations.length > 1 ? (
                <button type="submit" form="org-switch-form" class="secondary">
                  Switch
                </button>
              ) : null}
              <form method="post" action="/dashboard/sign-out">
                <Csrf token={shell.csrf} />
                <button type="submit" class="secondary">
                  Sign out
                </button>
              </form>
              {actions}
            </div>
          </div>
        </header>
        {children}
      </main>
    </div>
  </Document>
);
