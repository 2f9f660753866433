import { uuidv7 } from "uuidv7";

/** Time-ordered UUID (RFC 9562 v7): ids sort by creation time, which cursors rely on. */
export const newId = (): string => uuidv7();

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: string): boolean => UUID_RE.test(value);
