// The dashboard's pages as a signed-in user sees them: GET a page, or POST a form with the
// session's CSRF token, as the browser would.
import { csrfToken } from "../../src/dashboard/session";
import { request, signIn } from "./harness";

/** A user signed in to the pages: GET, or POST a form with the session's CSRF token. */
export async function pagesAs(email: string, password: string) {
  const { cookie, token } = await signIn(email, password);
  const csrf = await csrfToken(token);
  return async (path: string, fields?: Record<string, string>) => {
    const res = await request(path, {
      method: fields ? "POST" : "GET",
      headers: { cookie, ...(fields ? { "content-type": "application/x-www-form-urlencoded" } : {}) },
      body: fields ? new URLSearchParams({ ...fields, _csrf: csrf }) : undefined,
    });
    return { status: res.status, location: res.headers.get("location"), html: await res.text() };
  };
}

/** The text of the <pre> with this id, its HTML entities decoded, as a browser shows it. */
export function preText(html: string, id: string): string | undefined {
  const m = new RegExp(`<pre[^>]*id="${id}"[^>]*>([\\s\\S]*?)</pre>`).exec(html);
  return m?.[1]
    ?.replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, "&");
}
