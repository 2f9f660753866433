// The Knowledge screen's routes as its page sends them: a signed-in user's session with its CSRF
// token, a file uploaded as the page's script does (multipart, `Accept: application/json`) or as
// the form does without it, the live JSON the page follows, a field's error on a page.
import { csrfToken } from "../../src/dashboard/session";
import { request, signIn, until, type Workspace } from "./harness";

export interface DocumentRow {
  id: string;
  name: string;
  source: string;
  type: string;
  size: string;
  status: "processing" | "ready" | "failed";
  percent: number;
  error: string | null;
  passages: string;
}

export interface Live {
  counts: { documents: string; passages: string; size: string };
  documents: DocumentRow[];
}

export async function knowledgeSession(ws: Workspace) {
  const { cookie, token } = await signIn(ws.admin.email, ws.admin.password);
  const csrf = await csrfToken(token);
  return {
    cookie,
    csrf,
    /** POSTs form fields (the CSRF token added unless `csrf: null`); `json` asks for JSON as the page's script does. */
    post(path: string, fields: Record<string, string>, opts: { json?: boolean; csrf?: string | null } = {}) {
      const token = opts.csrf === undefined ? csrf : opts.csrf;
      return request(path, {
        method: "POST",
        headers: {
          cookie,
          "content-type": "application/x-www-form-urlencoded",
          ...(opts.json ? { accept: "application/json" } : {}),
        },
        body: new URLSearchParams({ ...fields, ...(token ? { _csrf: token } : {}) }),
      });
    },
    /** A file through the upload form: multipart with `type=file`, as the page's XMLHttpRequest sends it. */
    upload(
      kb: string,
      file: { name: string; type: string; bytes: Uint8Array | string },
      opts: { json?: boolean; csrf?: string | null } = {},
    ) {
      const token = opts.csrf === undefined ? csrf : opts.csrf;
      const form = new FormData();
      if (token) form.set("_csrf", token);
      form.set("type", "file");
      form.set("file", new Blob([file.bytes], { type: file.type }), file.name);
      return request(`/dashboard/knowledge/${kb}/documents`, {
        method: "POST",
        headers: { cookie, ...(opts.json !== false ? { accept: "application/json" } : {}) },
        body: form,
      });
    },
    get(path: string, json = false) {
      return request(path, { headers: { cookie, ...(json ? { accept: "application/json" } : {}) } });
    },
    async live(kb: string): Promise<Live> {
      const res = await request(`/dashboard/knowledge/${kb}/live`, { headers: { cookie, accept: "application/json" } });
      if (res.status !== 200) throw new Error(`live answered ${res.status}`);
      return (await res.json()) as Live;
    },
    /** The live JSON once no document it shows is processing. */
    settled(kb: string): Promise<Live> {
      return until(
        () => this.live(kb),
        (l) => l.documents.every((d) => d.status !== "processing"),
        30_000,
      );
    },
  };
}

const ENTITIES: Record<string, string> = { "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#39;": "'", "&amp;": "&" };

/** The text of the field's error on a page (`f-<name>-error`), its entities decoded; undefined when none. */
export function fieldError(html: string, name: string): string | undefined {
  const m = new RegExp(`id="f-${name}-error"[^>]*>([^<]*)<`).exec(html);
  return m?.[1]?.replace(/&(lt|gt|quot|#39|amp);/g, (e) => ENTITIES[e] ?? e);
}
