import type { RequestOptions } from "../core.js";
import type { PagePromise } from "../pagination.js";
import type { Widget, WidgetCreateParams, WidgetListParams, WidgetUpdateParams } from "../types.js";
import { Resource } from "./resource.js";

export class Widgets extends Resource {
  create(body: WidgetCreateParams, options?: RequestOptions): Promise<Widget> {
    return this.call({ operation: "createWidget", body }, options);
  }

  retrieve(id: string, options?: RequestOptions): Promise<Widget> {
    return this.call({ operation: "getWidget", pathParams: { id } }, options);
  }

  update(id: string, body: WidgetUpdateParams, options?: RequestOptions): Promise<Widget> {
    return this.call({ operation: "updateWidget", pathParams: { id }, body }, options);
  }

  list(query?: WidgetListParams, options?: RequestOptions): PagePromise<Widget> {
    return this.page("listWidgets", query, options);
  }

  del(id: string, options?: RequestOptions): Promise<void> {
    return this.call({ operation: "deleteWidget", pathParams: { id }, expect: "empty" }, options);
  }

  /** A new public token; the old one stops at once. */
  rotateToken(id: string, options?: RequestOptions): Promise<Widget> {
    return this.call({ operation: "rotateWidgetToken", pathParams: { id } }, options);
  }

  /** Turns the widget off for good (its token stops working). */
  revoke(id: string, options?: RequestOptions): Promise<Widget> {
    return this.call({ operation: "revokeWidget", pathParams: { id } }, options);
  }
}
