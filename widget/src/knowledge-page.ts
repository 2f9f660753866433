// A knowledge base's dashboard page (src/dashboard/knowledge/detail.tsx): the file upload goes by
// XMLHttpRequest, so the browser's upload progress fills a bar; documents being processed are
// followed (GET /dashboard/knowledge/:id/live every 2 s: their status, progress and passages) until
// none is; a test question is answered in place. Not part of widget.js: the dashboard's asset
// build bundles it (typechecked here with the browser's DOM types). Every form works without it.
// The forms carry the page's CSRF token; the routes answer JSON when asked (`Accept`), refusals in
// the API's error body.

/** A document's row as the server words it (src/dashboard/knowledge/format.ts). */
interface Row {
  id: string;
  name: string;
  source: string;
  url: string | null;
  type: string;
  size: string;
  status: "processing" | "ready" | "failed";
  percent: number;
  error: string | null;
  passages: string;
  added: string;
  addedAt: string;
}
interface Live {
  counts: { documents: string; passages: string; size: string };
  documents: Row[];
}
interface Passage {
  documentName: string;
  heading: string;
  content: string;
  score: number;
}
interface Answer {
  document?: Row;
  created?: boolean;
  data?: Passage[];
  summary?: string;
  message?: string;
}

const POLL_MS = 2_000;

export {}; // a module: its names are its own, not the page's globals

const root = document.querySelector<HTMLElement>("[data-knowledge-page]");
if (root) setUp(root);

function el(tag: string, className: string, text?: string): HTMLElement {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** The refusal's words: the error body's message, or what the status says. */
function refusal(status: number, body: Answer | null): string {
  if (body?.message) return body.message;
  if (status === 413) return "The file is too large for an upload (25 MiB at most).";
  if (status === 403) return "The page's security token is stale. Reload the page and try again.";
  return `The dashboard answered ${status || "nothing"}. Reload the page and try again.`;
}

const parse = (text: string): Answer | null => {
  try {
    return JSON.parse(text) as Answer;
  } catch {
    return null;
  }
};

function setUp(page: HTMLElement): void {
  const base = page.dataset.base ?? "";
  const cursor = page.dataset.cursor ?? "";
  const $ = <T extends Element>(selector: string) => page.querySelector<T>(selector);
  const body = $<HTMLTableSectionElement>("[data-documents-body]");
  const table = $<HTMLTableElement>("[data-documents]");
  const empty = $<HTMLElement>("[data-documents-empty]");
  const template = $<HTMLTemplateElement>("[data-document-template]");

  // The documents' rows
  function drawStatus(cell: Element, row: Row): void {
    const tone = row.status === "ready" ? " good" : row.status === "failed" ? " bad" : "";
    const parts: Array<Node | string> = [el("span", `badge${tone}`, row.status)];
    if (row.status === "processing") {
      const bar = document.createElement("progress");
      bar.max = 100;
      bar.value = row.percent;
      bar.textContent = `${row.percent}%`;
      bar.setAttribute("aria-label", `${row.name}: passages embedded`);
      const wrap = el("span", "doc-progress");
      wrap.append(bar, " ", el("span", "small", `${row.percent}%`));
      parts.push(wrap);
    }
    if (row.error) parts.push(el("span", "doc-error", row.error));
    cell.replaceChildren(...parts);
  }

  const cell = (tr: Element, name: string) => tr.querySelector(`[data-cell="${name}"]`);

  function fill(tr: HTMLElement, row: Row): void {
    tr.dataset.document = row.id;
    for (const name of ["name", "type", "size"] as const) {
      const c = cell(tr, name);
      if (c) c.textContent = row[name];
    }
    const source = cell(tr, "source");
    if (source && row.url) {
      const link = el("a", "doc-url", row.url) as HTMLAnchorElement;
      link.href = row.url;
      link.rel = "noopener noreferrer";
      source.replaceChildren(link);
    } else if (source) source.textContent = row.source;
    const added = cell(tr, "added");
    if (added) {
      const time = el("time", "", row.added);
      time.setAttribute("datetime", row.addedAt);
      added.replaceChildren(time);
    }
    const form = tr.querySelector("form");
    if (form) {
      form.action = `/dashboard/knowledge/${base}/documents/${row.id}/delete`;
      form.dataset.confirm = `Delete the document "${row.name}"? Its passages stop being found at once.`;
      const label = form.querySelector(".sr");
      if (label) label.textContent = ` ${row.name}`;
    }
  }

  function update(tr: HTMLElement, row: Row): void {
    tr.dataset.status = row.status;
    const status = cell(tr, "status");
    if (status) drawStatus(status, row);
    const passages = cell(tr, "passages");
    if (passages) passages.textContent = row.passages;
  }

  /** A row shown, updated; a document the page does not show yet (just uploaded), added on top. */
  function upsert(row: Row): void {
    if (!body) return;
    let tr = body.querySelector<HTMLElement>(`tr[data-document="${row.id}"]`);
    if (!tr) {
      const blank = template?.content.firstElementChild?.cloneNode(true);
      if (!(blank instanceof HTMLElement)) return;
      tr = blank;
      fill(tr, row);
      body.prepend(tr);
      if (table) table.hidden = false;
      if (empty) empty.hidden = true;
    }
    update(tr, row);
  }

  // Following the documents being processed
  const uploadStatus = $<HTMLElement>("[data-upload-status]");
  /** The document just uploaded: the upload's status line says when it is ready. */
  let uploaded: string | null = null;
  let timer = 0;
  let following = false;

  function follow(now: boolean): void {
    if (following && !now) return;
    following = true;
    window.clearTimeout(timer);
    timer = window.setTimeout(tick, now ? 0 : POLL_MS);
  }

  async function tick(): Promise<void> {
    let live: Live;
    try {
      const query = cursor ? `?cursor=${encodeURIComponent(cursor)}` : "";
      const res = await fetch(`/dashboard/knowledge/${base}/live${query}`, {
        headers: { accept: "application/json" },
        credentials: "same-origin",
      });
      if (!res.ok) throw new Error(String(res.status));
      live = (await res.json()) as Live;
    } catch {
      timer = window.setTimeout(tick, POLL_MS * 2); // a blip: try again, a little later
      return;
    }
    // Newest first: added from the oldest, each on top.
    for (const row of [...live.documents].reverse()) upsert(row);
    for (const [name, text] of Object.entries(live.counts)) {
      const count = page.querySelector(`[data-count="${name}"]`);
      if (count) count.textContent = text;
    }
    const mine = live.documents.find((d) => d.id === uploaded);
    if (mine && mine.status !== "processing" && uploadStatus) {
      uploadStatus.textContent =
        mine.status === "ready" ? `“${mine.name}” is ready: ${mine.passages} passages.` : `“${mine.name}” failed: ${mine.error ?? ""}`;
      uploaded = null;
    }
    if (live.documents.some((d) => d.status === "processing")) timer = window.setTimeout(tick, POLL_MS);
    else following = false;
  }

  if (body?.querySelector('tr[data-status="processing"]')) follow(false);

  // The upload, with its progress
  const upload = $<HTMLFormElement>("[data-upload]");
  if (upload) {
    const input = upload.querySelector<HTMLInputElement>('input[type="file"]');
    const box = upload.querySelector<HTMLElement>("[data-upload-progress]");
    const bar = upload.querySelector<HTMLProgressElement>("[data-upload-bar]");
    const percent = upload.querySelector<HTMLElement>("[data-upload-percent]");
    const error = upload.querySelector<HTMLElement>("[data-upload-error]");
    const submit = upload.querySelector<HTMLButtonElement>("[data-upload-submit]");
    const setPercent = (value: number) => {
      if (bar) {
        bar.value = value;
        bar.textContent = `${value}%`;
      }
      if (percent) percent.textContent = `${value}%`;
    };
    const refuse = (message: string) => {
      if (box) box.hidden = true;
      if (uploadStatus) uploadStatus.textContent = "";
      if (error) {
        error.textContent = message;
        error.hidden = false;
      }
      input?.setAttribute("aria-invalid", "true");
    };

    upload.addEventListener("submit", (event) => {
      event.preventDefault();
      const file = input?.files?.[0];
      if (!file) {
        refuse("Choose a file to upload.");
        return;
      }
      if (error) error.hidden = true;
      input?.removeAttribute("aria-invalid");
      if (box) box.hidden = false;
      setPercent(0);
      if (uploadStatus) uploadStatus.textContent = `Uploading “${file.name}”…`;
      if (submit) submit.disabled = true;
      const xhr = new XMLHttpRequest();
      xhr.open("POST", upload.action);
      xhr.setRequestHeader("accept", "application/json");
      xhr.upload.addEventListener("progress", (e) => {
        if (e.lengthComputable && e.total > 0) setPercent(Math.min(100, Math.floor((e.loaded / e.total) * 100)));
      });
      xhr.addEventListener("load", () => {
        if (submit) submit.disabled = false;
        const answer = parse(xhr.responseText);
        const row = answer?.document;
        if (xhr.status < 200 || xhr.status >= 300 || !row) {
          refuse(refusal(xhr.status, answer));
          return;
        }
        setPercent(100);
        upload.reset();
        upsert(row);
        if (answer.created) {
          uploaded = row.id;
          if (uploadStatus) uploadStatus.textContent = `Uploaded “${row.name}”: processing…`;
          follow(true);
        } else if (uploadStatus) {
          uploadStatus.textContent = `The same content is in this knowledge base already, as “${row.name}”: nothing was added.`;
        }
      });
      xhr.addEventListener("error", () => {
        if (submit) submit.disabled = false;
        refuse("The upload failed: the connection dropped. Try again.");
      });
      xhr.send(new FormData(upload));
    });
  }

  // The test question, answered in place
  const ask = $<HTMLFormElement>("[data-query-form]");
  const asked = $<HTMLElement>("[data-query-status]");
  const results = $<HTMLOListElement>("[data-query-results]");
  ask?.addEventListener("submit", async (event) => {
    event.preventDefault();
    const fields = new URLSearchParams();
    for (const [name, value] of new FormData(ask)) if (typeof value === "string") fields.append(name, value);
    const say = (text: string, failed: boolean) => {
      if (!asked) return;
      asked.textContent = text;
      asked.classList.toggle("field-error", failed);
    };
    say("Searching…", false);
    let status = 0;
    let answer: Answer | null = null;
    try {
      const res = await fetch(ask.action, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
        body: fields,
        credentials: "same-origin",
      });
      status = res.status;
      answer = parse(await res.text());
    } catch {
      // the connection dropped: said below
    }
    if (status !== 200 || !answer?.data) {
      say(refusal(status, answer), true);
      return;
    }
    results?.replaceChildren(
      ...answer.data.map((p) => {
        const item = document.createElement("li");
        const meta = el("p", "passage-meta");
        meta.append(el("span", "badge", `score ${p.score.toFixed(2)}`), " ", el("strong", "", p.documentName));
        if (p.heading) meta.append(el("span", "muted", ` › ${p.heading}`));
        item.append(meta, el("p", "passage", p.content));
        return item;
      }),
    );
    say(answer.summary ?? "", false);
  });
}
