import type { APIClient, ApiRequest, RequestOptions } from "../core.js";
import type { OperationId } from "../operations.js";
import { type PageBody, PagePromise } from "../pagination.js";

export abstract class Resource {
  protected readonly client: APIClient;

  constructor(client: APIClient) {
    this.client = client;
  }

  protected async call<T>(req: ApiRequest, options?: RequestOptions): Promise<T> {
    return (await this.client.request<T>(req, options)).data;
  }

  /** A list operation as a PagePromise: the query is kept for every page, the cursor follows nextCursor. */
  protected page<T>(
    operation: OperationId,
    query: { cursor?: string } & object = {},
    options?: RequestOptions,
    pathParams?: Record<string, string>,
  ): PagePromise<T> {
    const { cursor, ...filters } = query;
    return new PagePromise<T>(
      (next) => this.call<PageBody<T>>({ operation, pathParams, query: { ...filters, cursor: next } }, options),
      cursor,
    );
  }
}
