// Where the webhook-endpoint routes are mounted (the API and the dashboard's JSON copy), their
// operation ids and the properties every one of them shares.
export interface Mount {
  /** The path inside the router the routes are registered on (mounted at /v1 or at /dashboard/api). */
  base: string;
  security: Array<Record<string, string[]>>;
  /** operationId prefix: "" for the API, "dashboard" for the dashboard's copy. */
  prefix: string;
  tag: string;
}

export const opId = (mount: Mount, name: string) => (mount.prefix ? `${mount.prefix}${name[0]?.toUpperCase()}${name.slice(1)}` : name);

/** The tag and security of every operation of a mount. */
export const common = (m: Mount) => ({ tags: [m.tag], security: m.security });
