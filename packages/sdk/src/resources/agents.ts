import type { RequestOptions } from "../core.js";
import type { PagePromise } from "../pagination.js";
import type { Agent, AgentCreateParams, AgentListParams, AgentUpdateParams } from "../types.js";
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
