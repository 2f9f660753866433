import type { RequestOptions } from "../core.js";
import type { PagePromise } from "../pagination.js";
import type {
  Agent,
  AgentCreateParams,
  AgentListParams,
  AgentUpdateParams,
  AgentVersion,
  AgentVersionDiff,
  AgentVersionListParams,
  AgentVersionSummary,
} from "../types.js";
import { Resource } from "./resource.js";

export class Agents extends Resource {
  create(body: AgentCreateParams, options?: RequestOptions): Promise<Agent> {
    return this.call({ operation: "createAgent", body }, options);
  }

  retrieve(id: string, options?: RequestOptions): Promise<Agent> {
    return this.call({ operation: "getAgent", pathParams: { id } }, options);
  }

  update(id: string, body: AgentUpdateParams, options?: RequestOptions): Promise<Agent> {
    return this.call({ operation: "updateAgent", pathParams: { id }, body }, options);
  }

  /** The change as a draft: a new version that is not live until `publish`; the answer is the agent as it stands. */
  saveDraft(id: string, body: AgentUpdateParams, options?: RequestOptions): Promise<Agent> {
    return this.call({ operation: "updateAgent", pathParams: { id }, query: { draft: "true" }, body }, options);
  }

  /** Makes a version live (default: the newest). */
  publish(id: string, body: { version?: number } = {}, options?: RequestOptions): Promise<Agent> {
    return this.call({ operation: "publishAgentVersion", pathParams: { id }, body }, options);
  }

  /** An earlier version's configuration as a new, live version. */
  rollback(id: string, body: { version: number }, options?: RequestOptions): Promise<Agent> {
    return this.call({ operation: "rollbackAgent", pathParams: { id }, body }, options);
  }

  /** The agent's versions, newest first, without their configurations; `for await` walks every page. */
  listVersions(id: string, query?: AgentVersionListParams, options?: RequestOptions): PagePromise<AgentVersionSummary> {
    return this.page("listAgentVersions", query, options, { id });
  }

  /** One version with its whole configuration. */
  retrieveVersion(id: string, version: number, options?: RequestOptions): Promise<AgentVersion> {
    return this.call({ operation: "getAgentVersion", pathParams: { id, version: String(version) } }, options);
  }

  /** What changed from version `from` to version `to`. */
  diffVersions(id: string, from: number, to: number, options?: RequestOptions): Promise<AgentVersionDiff> {
    return this.call({ operation: "diffAgentVersions", pathParams: { id, from: String(from), to: String(to) } }, options);
  }

  /** Newest first; `for await` walks every page. */
  list(query?: AgentListParams, options?: RequestOptions): PagePromise<Agent> {
    return this.page("listAgents", query, options);
  }

  del(id: string, options?: RequestOptions): Promise<void> {
    return this.call({ operation: "deleteAgent", pathParams: { id }, expect: "empty" }, options);
  }

  /** A new secret signs the agent's tool requests from now on; the answer is the one place it is shown in full. */
  rotateToolSecret(id: string, options?: RequestOptions): Promise<Agent> {
    return this.call({ operation: "rotateAgentToolSecret", pathParams: { id } }, options);
  }
}
