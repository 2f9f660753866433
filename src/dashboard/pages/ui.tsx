/** @jsxImportSource hono/jsx */
// The dashboard's shell and form pieces (Hono JSX, rendered on the server). Every form carries
// the CSRF token; every field has a label, keeps what the user typed and shows its error inline.
import type { Context } from "hono";
import type { Child, FC } from "hono/jsx";
import type { AppEnv } from "../../context";
import { CSRF_FIELD } from "./session";

const CSS = `
:root{--fg:#1c2230;--muted:#5b6475;--line:#d9dee7;--bg:#f6f7fb;--card:#fff;--accent:#3b5bdb;--accent-fg:#fff;--danger:#c92a2a;--ok:#237032;--warn:#e67700;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
*{box-sizing:border-box}body{margin:0}a{color:var(--accent)}
.shell{display:grid;grid-template-columns:220px 1fr;min-height:100vh}
nav.side{background:#111827;color:#e5e7eb;padding:16px 12px;display:flex;flex-direction:column;gap:4px}
nav.side .brand{font-weight:700;font-size:15px;margin:0 8px 12px}
nav.side a{color:#d1d5db;text-decoration:none;padding:8px 10px;border-radius:6px;font-size:14px}
nav.side a[aria-current=page]{background:#374151;color:#fff}
nav.side a:hover,nav.side a:focus-visible{background:#1f2937;color:#fff}
nav.side .section{font-size:11px;text-transform:uppercase;letter-spacing:.06em;color:#9ca3af;margin:12px 10px 2px}
main{padding:24px 32px;max-width:1100px;width:100%;min-width:0}
nav.side .links{display:flex;flex-direction:column;gap:4px}
[hidden]{display:none!important}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
header.top{display:flex;flex-wrap:wrap;gap:12px;align-items:center;justify-content:space-between;margin-bottom:20px}
h1{font-size:22px;margin:0}h2{font-size:17px;margin:24px 0 10px}
.card{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:18px;margin-bottom:16px}
table{width:100%;border-collapse:collapse;font-size:14px}th,td{text-align:left;padding:8px 10px;border-bottom:1px solid var(--line);vertical-align:top}
th{font-size:12px;color:var(--muted);font-weight:600;text-transform:uppercase;letter-spacing:.03em}
.table-wrap{overflow-x:auto;background:linear-gradient(90deg,#fff 30%,#fff0) left/40px 100% no-repeat local,linear-gradient(270deg,#fff 30%,#fff0) right/40px 100% no-repeat local,radial-gradient(farthest-side at 0 50%,#0003,#0000) left/14px 100% no-repeat scroll,radial-gradient(farthest-side at 100% 50%,#0003,#0000) right/14px 100% no-repeat scroll,#fff}
time{white-space:nowrap}
label{display:block;font-weight:600;font-size:14px;margin:12px 0 4px}
.hint{font-size:12px;color:var(--muted);margin:2px 0 0;overflow-wrap:anywhere}
input[type=text],input[type=email],input[type=password],input[type=number],input[type=url],input[type=tel],select,textarea{width:100%;padding:8px 10px;border:1px solid var(--line);border-radius:6px;font:inherit;background:#fff}
textarea{min-height:90px;font-family:ui-monospace,Menlo,monospace;font-size:13px}
input:focus,select:focus,textarea:focus,button:focus-visible,a:focus-visible,[tabindex]:focus-visible{outline:3px solid #91a7ff;outline-offset:1px}
.field-error{color:var(--danger);font-size:13px;margin:4px 0 0}
[aria-invalid=true]{border-color:var(--danger)!important}
.check{display:flex;gap:8px;align-items:center;font-weight:400;margin:6px 0}
button,.button{display:inline-block;padding:8px 14px;border-radius:6px;border:1px solid var(--accent);background:var(--accent);color:var(--accent-fg);font:inherit;font-weight:600;cursor:pointer;text-decoration:none;font-size:14px}
button.secondary,.button.secondary{background:#fff;color:var(--accent)}
button.danger{background:var(--danger);border-color:var(--danger)}
.row{display:flex;flex-wrap:wrap;gap:8px;align-items:center}
.grid2{display:grid;grid-template-columns:1fr 1fr;gap:0 20px}
.flash{padding:12px 14px;border-radius:8px;margin-bottom:16px;border:1px solid}
.flash.ok{background:#ebfbee;border-color:#b2f2bb}.flash.error{background:#fff5f5;border-color:#ffc9c9}.flash.warn{background:#fff9db;border-color:#ffe066}
.badge{display:inline-block;padding:2px 8px;border-radius:99px;font-size:12px;font-weight:600;background:#edf2ff;color:#364fc7}
.badge.off{background:#f1f3f5;color:#495057}.badge.bad{background:#fff5f5;color:var(--danger)}.badge.good{background:#ebfbee;color:var(--ok)}
code,.mono{font-family:ui-monospace,Menlo,monospace;font-size:13px}
.secret{display:flex;gap:8px;align-items:center;background:#f8f9fa;border:1px dashed var(--line);padding:10px;border-radius:6px;word-break:break-all}
.secret button{flex-shrink:0;white-space:nowrap}
.muted{color:var(--muted)}.small{font-size:13px}
.mt0{margin-top:0}.m0{margin:0}.mt4{margin-top:4px}.mt6{margin-top:6px}.mt18{margin-top:18px}.w-auto{width:auto}.grow{flex:1;min-width:220px}.w140{min-width:140px}.w120{min-width:120px}.end{align-self:flex-end}.left{text-align:left}.plain-list{list-style:none;padding:0;margin:0}
.narrow{max-width:420px;margin:8vh auto;padding:0 16px}.error-page{padding:32px;max-width:640px}
.turns{list-style:none;padding:0;margin:0}.turns li{padding:8px 0;border-bottom:1px solid var(--line)}.turns .role{font-weight:700;margin-right:6px}
pre{background:#f8f9fa;border:1px solid var(--line);border-radius:6px;padding:10px;overflow:auto;font-size:12px;max-height:420px}
.skip{position:absolute;left:-999px}.skip:focus{left:8px;top:8px;background:#fff;padding:8px;z-index:9}
@media (max-width:760px){.shell{grid-template-columns:1fr;grid-template-rows:auto 1fr}nav.side{padding:8px}nav.side .brand{margin:4px 8px 6px}nav.side .section{display:none}nav.side .links{flex-direction:row;flex-wrap:wrap;gap:2px}nav.side a{white-space:nowrap;padding:6px 8px}main{padding:16px}.grid2{grid-template-columns:1fr}}
`;

/** Small progressive enhancement: copy buttons and confirmations. Everything works without it. */
const SCRIPT = `
document.addEventListener('click',function(e){var b=e.target.closest('[data-copy]');if(!b)return;var t=document.getElementById(b.getAttribute('data-copy'));if(!t)return;navigator.clipboard&&navigator.clipboard.writeText(t.textContent.trim()).then(function(){b.textContent='Copied';setTimeout(function(){b.textContent='Copy'},1500)})});
document.addEventListener('submit',function(e){var m=e.target.getAttribute('data-confirm');if(m&&!confirm(m))e.preventDefault()});
`;

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

/** This response's Content-Security-Policy nonce (the page policy in index.tsx makes one per response). */
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
  { href: "/dashboard/agents", label: "Agents", key: "agents", section: "Build" },
  { href: "/dashboard/voices", label: "Voices", key: "voices" },
  { href: "/dashboard/calls", label: "Calls", key: "calls" },
  { href: "/dashboard/widgets", label: "Widgets", key: "widgets" },
  { href: "/dashboard/usage", label: "Usage", key: "usage" },
  { href: "/dashboard/api-keys", label: "API Keys", key: "api-keys", admin: true, section: "Settings" },
  { href: "/dashboard/webhooks", label: "Webhooks", key: "webhooks", admin: true },
  { href: "/dashboard/members", label: "Members", key: "members" },
];

export const Csrf: FC<{ token: string }> = ({ token }) => <input type="hidden" name={CSRF_FIELD} value={token} />;

/** An inline <style> allowed by the page's policy (its nonce). */
export const InlineStyle: FC<{ nonce: string; css: string }> = ({ nonce, css }) => (
  <style nonce={nonce} dangerouslySetInnerHTML={{ __html: css }} />
);

/** An inline <script> allowed by the page's policy (its nonce); `type="application/json"` for data. */
export const InlineScript: FC<{ nonce: string; js: string; id?: string; type?: string }> = ({ nonce, js, id, type }) => (
  <script nonce={nonce} id={id} type={type} dangerouslySetInnerHTML={{ __html: js }} />
);

/** `css`: the page's own styles, after the shell's. */
export const Document: FC<{ title: string; nonce: string; css?: string; children?: Child }> = ({ title, nonce, css, children }) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>{title} · Dashboard</title>
      <InlineStyle nonce={nonce} css={CSS} />
      {css ? <InlineStyle nonce={nonce} css={css} /> : null}
    </head>
    <body>
      {children}
      <InlineScript nonce={nonce} js={SCRIPT} />
    </body>
  </html>
);

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
          <div class="row">
            {shell.organizations.length > 1 ? (
              <form method="post" action="/dashboard/switch-org" class="row">
                <Csrf token={shell.csrf} />
                <label for="org-switch" class="m0">
                  Organization
                </label>
                <select id="org-switch" name="organizationId" class="w-auto">
                  {shell.organizations.map((o) => (
                    <option value={o.id} selected={o.id === shell.organizationId}>
                      {o.name} ({o.role})
                    </option>
                  ))}
                </select>
                <button type="submit" class="secondary">
                  Switch
                </button>
              </form>
            ) : (
              <span class="muted small">{shell.organizations[0]?.name}</span>
            )}
            <span class="muted small">{shell.user.email}</span>
            <form method="post" action="/dashboard/sign-out">
              <Csrf token={shell.csrf} />
              <button type="submit" class="secondary">
                Sign out
              </button>
            </form>
            {actions}
          </div>
        </header>
        {children}
      </main>
    </div>
  </Document>
);

export const Flash: FC<{ kind?: "ok" | "error" | "warn"; children?: Child }> = ({ kind = "ok", children }) => (
  <div class={`flash ${kind}`} role={kind === "error" ? "alert" : "status"}>
    {children}
  </div>
);

export const AdminRequired: FC<{ permission: string }> = ({ permission }) => (
  <div class="card" role="alert">
    <h2 class="mt0">Admin access required</h2>
    <p>
      This screen needs the <code>{permission}</code> permission, which workspace admins have. Ask an admin of this organization to change
      your role, or switch to an organization where you are an admin.
    </p>
  </div>
);

export type FieldErrors = Record<string, string>;

/** `testUrl` → "Test url", `analysisPlan.successCriteria` → "Success criteria": the field as a person reads it. */
const humanize = (key: string) => {
  const last =
    key
      .split(".")
      .filter((p) => !/^\d+$/.test(p))
      .pop() ?? key;
  const words = last.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
};

const fieldId = (name: string) => `f-${name.replace(/[^A-Za-z0-9_-]/g, "-")}`;

interface FieldProps {
  name: string;
  label: string;
  value?: string | number | null;
  errors?: FieldErrors;
  hint?: string;
  required?: boolean;
}

const Hint: FC<{ id: string; hint?: string; error?: string }> = ({ id, hint, error }) => (
  <>
    {hint ? (
      <p class="hint" id={`${id}-hint`}>
        {hint}
      </p>
    ) : null}
    {error ? (
      <p class="field-error" id={`${id}-error`}>
        {error}
      </p>
    ) : null}
  </>
);

const describedBy = (id: string, hint?: string, error?: string) =>
  [hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;

export const TextField: FC<FieldProps & { type?: string; placeholder?: string; step?: string }> = (p) => {
  const id = fieldId(p.name);
  const error = p.errors?.[p.name];
  return (
    <div>
      <label for={id}>{p.label}</label>
      <input
        id={id}
        name={p.name}
        type={p.type ?? "text"}
        value={p.value ?? ""}
        required={p.required}
        placeholder={p.placeholder}
        step={p.step}
        aria-invalid={error ? "true" : undefined}
        aria-describedby={describedBy(id, p.hint, error)}
      />
      <Hint id={id} hint={p.hint} error={error} />
    </div>
  );
};

export const TextArea: FC<FieldProps & { rows?: number }> = (p) => {
  const id = fieldId(p.name);
  const error = p.errors?.[p.name];
  return (
    <div>
      <label for={id}>{p.label}</label>
      <textarea
        id={id}
        name={p.name}
        rows={p.rows ?? 4}
        required={p.required}
        aria-invalid={error ? "true" : undefined}
        aria-describedby={describedBy(id, p.hint, error)}
      >
        {p.value ?? ""}
      </textarea>
      <Hint id={id} hint={p.hint} error={error} />
    </div>
  );
};

export const Select: FC<FieldProps & { options: Array<{ value: string; label: string }> }> = (p) => {
  const id = fieldId(p.name);
  const error = p.errors?.[p.name];
  return (
    <div>
      <label for={id}>{p.label}</label>
      <select id={id} name={p.name} aria-invalid={error ? "true" : undefined} aria-describedby={describedBy(id, p.hint, error)}>
        {p.options.map((o) => (
          <option value={o.value} selected={String(p.value ?? "") === o.value}>
            {o.label}
          </option>
        ))}
      </select>
      <Hint id={id} hint={p.hint} error={error} />
    </div>
  );
};

export const Checkbox: FC<{ name: string; label: string; checked?: boolean; value?: string; errors?: FieldErrors }> = (p) => {
  const id = fieldId(`${p.name}-${p.value ?? "on"}`);
  return (
    <label class="check" for={id}>
      <input type="checkbox" id={id} name={p.name} value={p.value ?? "on"} checked={p.checked} />
      {p.label}
    </label>
  );
};

/** Form-level errors, listed at the top so a screen reader hears them first. */
export const ErrorSummary: FC<{ errors?: FieldErrors; message?: string }> = ({ errors, message }) => {
  const entries = Object.entries(errors ?? {});
  if (!message && entries.length === 0) return null;
  return (
    <div class="flash error" role="alert">
      <strong>{message ?? "Please correct the fields below."}</strong>
      {entries.length > 0 ? (
        <ul>
          {entries.map(([k, v]) => (
            <li>
              <a href={`#${fieldId(k)}`}>{humanize(k)}</a>: {v}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
};

export const Secret: FC<{ id: string; value: string; warning: string }> = ({ id, value, warning }) => (
  <div class="flash warn" role="status">
    <p class="mt0">
      <strong>{warning}</strong>
    </p>
    <div class="secret">
      <code id={id}>{value}</code>
      <button type="button" class="secondary" data-copy={id}>
        Copy
      </button>
    </div>
  </div>
);

/** A moment as text, in UTC and saying so: "2025-01-31 09:05:12 UTC" ("—" when absent). */
export const when = (d: Date | string | null | undefined) => (d ? `${new Date(d).toISOString().replace("T", " ").slice(0, 19)} UTC` : "—");

/** A moment on the page: `when`'s text in a <time> whose `datetime` is the instant (ISO 8601, UTC). */
export const When: FC<{ at: Date | string | null | undefined }> = ({ at }) =>
  at ? <time datetime={new Date(at).toISOString()}>{when(at)}</time> : <>—</>;
