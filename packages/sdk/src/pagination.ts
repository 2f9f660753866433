// Cursor pages (docs/pagination.md): `{ data, nextCursor, hasMore }`, newest first, the cursor
// passed back unchanged with the same filters. A list method returns a PagePromise: await it for
// one page (cursor access), or iterate it with `for await` for every item across pages.

export interface PageBody<T> {
  data: T[];
  nextCursor: string | null;
  hasMore: boolean;
}

type FetchPage<T> = (cursor: string | undefined) => Promise<PageBody<T>>;

export class Page<T> implements PageBody<T> {
  readonly data: T[];
  readonly nextCursor: string | null;
  readonly hasMore: boolean;
  readonly #fetchPage: FetchPage<T>;

  constructor(body: PageBody<T>, fetchPage: FetchPage<T>) {
    this.data = body.data;
    this.nextCursor = body.nextCursor;
    this.hasMore = body.hasMore;
    this.#fetchPage = fetchPage;
  }

  hasNextPage(): boolean {
    return this.hasMore && typeof this.nextCursor === "string";
  }

  /** The next page (same filters and limit); throws when there is none: check hasNextPage() first. */
  async getNextPage(): Promise<Page<T>> {
    if (!this.hasNextPage()) throw new Error("No next page: this is the last one (hasMore is false).");
    return new Page(await this.#fetchPage(this.nextCursor as string), this.#fetchPage);
  }

  /** This page and every following one. */
  async *iterPages(): AsyncGenerator<Page<T>> {
    let page: Page<T> = this;
    yield page;
    while (page.hasNextPage()) {
      page = await page.getNextPage();
      yield page;
    }
  }

  /** Every item of this page and the following ones. */
  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    for await (const page of this.iterPages()) yield* page.data;
  }
}

/** A pending first page: `await` it for the Page, or `for await` over it for every item. */
export class PagePromise<T> implements PromiseLike<Page<T>>, AsyncIterable<T> {
  readonly #fetchPage: FetchPage<T>;
  readonly #cursor: string | undefined;
  #pending: Promise<Page<T>> | undefined;

  constructor(fetchPage: FetchPage<T>, cursor: string | undefined) {
    this.#fetchPage = fetchPage;
    this.#cursor = cursor;
  }

  /** The request starts when the page is first awaited or iterated, not before. */
  get #page(): Promise<Page<T>> {
    this.#pending ??= this.#fetchPage(this.#cursor).then((body) => new Page(body, this.#fetchPage));
    return this.#pending;
  }

  // biome-ignore lint/suspicious/noThenProperty: a PagePromise is awaited like the Page it resolves to
  then<R1 = Page<T>, R2 = never>(
    onfulfilled?: ((value: Page<T>) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.#page.then(onfulfilled, onrejected);
  }

  catch<R = never>(onrejected?: ((reason: unknown) => R | PromiseLike<R>) | null): Promise<Page<T> | R> {
    return this.#page.catch(onrejected);
  }

  finally(onfinally?: (() => void) | null): Promise<Page<T>> {
    return this.#page.finally(onfinally);
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    yield* await this.#page;
  }
}
