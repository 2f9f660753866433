import { uuidv7 } from "uuidv7";

/** Time-ordered UUID (RFC 9562 v7): ids sort by creation time, which cursors rely on. */
export const newId = (): string => uuidv7();

/**
 * A UUID v7 of a past moment (ms since the epoch): for rows written as if made then (seeds of the
 * bench and the tests, imports), so they sort among the others by that time.
 */
export const idAt = (at: number): string => {
  const hex = Math.max(0, Math.floor(at)).toString(16).padStart(12, "0");
  return newId().replace(/^[0-9a-f]{8}-[0-9a-f]{4}/, `${hex.slice(0, 8)}-${hex.slice(8)}`);
};

/**
 * The least UUID of a moment (ms since the epoch): every UUID v7 made at or after it sorts at or
 * above it, so `id >= firstIdAt(t)` bounds a range scan of an (organization, id) index by time.
 */
export const firstIdAt = (at: number): string => {
  const hex = Math.max(0, Math.floor(at)).toString(16).padStart(12, "0");
  return `${hex.slice(0, 8)}-${hex.slice(8)}-0000-0000-000000000000`;
};

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: string): boolean => UUID_RE.test(value);
