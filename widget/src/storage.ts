// The widget's storage: the visitor's random id (localStorage) and this tab's conversation
// (sessionStorage), through accessors that never throw (blocked storage, private modes, sandboxed frames).

function randomId(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return `v_${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/** localStorage / sessionStorage that never throws. */
export function store(kind: "localStorage" | "sessionStorage") {
  return {
    get(key: string): string | null {
      try {
        return window[kind].getItem(key);
      } catch {
        return null;
      }
    },
    set(key: string, value: string | null): void {
      try {
        if (value === null) window[kind].removeItem(key);
        else window[kind].setItem(key, value);
      } catch {
        // storage unavailable: the widget still works for this page view
      }
    },
  };
}

/** This browser's visitor id (`service-widget:visitor`), made once. */
export function visitorId(): string {
  const local = store("localStorage");
  const key = "service-widget:visitor";
  const known = local.get(key);
  if (known && /^[A-Za-z0-9_-]{8,64}$/.test(known)) return known;
  const id = randomId();
  local.set(key, id);
  return id;
}
