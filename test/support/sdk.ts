// The SDK (packages/sdk, from source) against the test stack's worker, as a workspace's client.
import { type ClientOptions, VoiceAgentPlatform } from "../../packages/sdk/src/index";
import { baseUrl, type Workspace } from "./harness";

/** A client for the workspace; `fetch` is wrapped to record every attempt's status and headers. */
export function sdkFor(ws: Pick<Workspace, "apiKey">, options: Partial<ClientOptions> = {}) {
  const attempts: Array<{ method: string; url: string; status: number; headers: Headers; at: number }> = [];
  const inner = options.fetch ?? fetch;
  const client = new VoiceAgentPlatform({
    apiKey: ws.apiKey,
    baseURL: baseUrl(),
    ...options,
    fetch: async (input, init) => {
      const res = await inner(input, init);
      attempts.push({ method: init?.method ?? "GET", url: String(input), status: res.status, headers: res.headers, at: Date.now() });
      return res;
    },
  });
  return Object.assign(client, { attempts });
}

export const PERSONA = "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77";
