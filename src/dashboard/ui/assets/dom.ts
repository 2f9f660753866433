// The few browser APIs the dashboard's scripts use, typed here. src/ is typechecked as Workers
// code (no DOM library: it would clash with @cloudflare/workers-types), while these scripts run
// in the browser, bundled by ./build.ts; so they reach the page through these narrow types.

export interface DomEvent {
  readonly target: DomElement | null;
  preventDefault(): void;
}

export interface DomList<T> extends Iterable<T> {
  readonly length: number;
  forEach(callback: (item: T) => void): void;
}

export interface DomElement {
  hidden: boolean;
  textContent: string | null;
  readonly classList: { toggle(token: string, force?: boolean): boolean };
  getAttribute(name: string): string | null;
  closest(selector: string): DomElement | null;
  querySelector<T extends DomElement = DomElement>(selector: string): T | null;
  querySelectorAll<T extends DomElement = DomElement>(selector: string): DomList<T>;
  addEventListener(type: "click" | "change" | "submit", listener: (event: DomEvent) => void): void;
}

/** An input, or a fieldset (`disabled`). */
export interface DomControl extends DomElement {
  readonly name: string;
  readonly value: string;
  checked: boolean;
  disabled: boolean;
}

interface Browser {
  document: Pick<DomElement, "addEventListener" | "querySelector"> & { getElementById(id: string): DomElement | null };
  navigator: { clipboard?: { writeText(text: string): Promise<void> } };
  confirm(message: string): boolean;
}

/** The page's window, as the scripts see it. */
export const browser = globalThis as unknown as Browser;
