// Where the webhook-endpoint routes are mounted (the API and the dashboard's JSON copy) and their operation ids.
export interface Mount {
  /** `/v1/webhook-endpoints` or `/dashboard/api/webhook-endpoints`. */
  base: string;
  security: Array<Record<string, string[]>>;
  /** operationId prefix: "" for the API, "dashboard" for the dashboard's copy. */
  prefix: string;
  tag: string;
}

export const opId = (mount: Mount, name: string) => (mount.prefix ? `${mount.prefix}${name[0]?.toUpperCase()}${name.slice(1)}` : name);
