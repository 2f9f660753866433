// The Campaigns screen's routes as its pages send them: a signed-in user's session with its CSRF
// token, the new campaign form as multipart with a CSV file (or its text), the buttons' posts, the
// live JSON a campaign's page follows.
import { csrfToken } from "../../src/dashboard/session";
import { request, signIn, type Workspace } from "./harness";

export interface LiveRow {
  id: string;
  row: number;
  phoneNumber: string;
  variables: string;
  state: string;
  stateLabel: string;
  attempts: number;
  lastCallId: string | null;
  lastEndedReason: string;
}

export interface Live {
  status: string;
  pausedReason: string | null;
  counts: Record<string, number>;
  progress: { done: number; total: number; percent: number; text: string };
  callsInFlight: number;
  recipients: LiveRow[];
}

/** The new campaign form's fields (repeated ones as lists), as the browser posts them. */
export type CampaignFields = Record<string, string | string[]>;

export async function campaignSession(ws: Workspace) {
  const { cookie, token } = await signIn(ws.admin.email, ws.admin.password);
  const csrf = await csrfToken(token);
  return {
    cookie,
    csrf,
    get(path: string, json = false) {
      return request(path, { headers: { cookie, ...(json ? { accept: "application/json" } : {}) } });
    },
    /** The new campaign form, as multipart (the browser's enctype), with the CSV as a file when `csv` is given. */
    create(fields: CampaignFields, csv?: { name: string; bytes: Uint8Array | string }) {
      const form = new FormData();
      form.set("_csrf", csrf);
      for (const [name, value] of Object.entries(fields)) for (const v of Array.isArray(value) ? value : [value]) form.append(name, v);
      form.set(
        "csv",
        csv ? new Blob([csv.bytes], { type: "text/csv" }) : new Blob([], { type: "application/octet-stream" }),
        csv?.name ?? "",
      );
      return request("/dashboard/campaigns", { method: "POST", headers: { cookie }, body: form });
    },
    /** A campaign page's button (start, pause, resume, cancel, delete). */
    act(id: string, action: string) {
      return request(`/dashboard/campaigns/${id}/${action}`, {
        method: "POST",
        headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ _csrf: csrf }),
      });
    },
    async live(id: string, query = ""): Promise<Live> {
      const res = await request(`/dashboard/campaigns/${id}/live${query}`, { headers: { cookie, accept: "application/json" } });
      if (res.status !== 200) throw new Error(`live answered ${res.status}`);
      return (await res.json()) as Live;
    },
  };
}
