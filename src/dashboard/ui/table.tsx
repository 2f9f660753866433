/** @jsxImportSource hono/jsx */
// DataTable: the one table of the dashboard's lists. Columns say what each cell shows; with no
// rows the table gives way to its empty state. It sits in a card that scrolls sideways (and takes
// keyboard focus, so it can be scrolled without a mouse) when the table is wider than the page.
import type { Child } from "hono/jsx";

export interface Column<T> {
  /** The header cell's content. */
  header: Child;
  /** The cell of `row`. */
  cell: (row: T) => Child;
  /** The cell's class (`mono`, `small`…). */
  class?: string;
  /** With `stack`, the cell's name above it on a phone (`data-label`). */
  label?: string;
}

export interface DataTableProps<T> {
  columns: Array<Column<T>>;
  rows: readonly T[];
  /** Shown instead of the table when there are no rows (an EmptyState); without it, an empty table. */
  empty?: Child;
  caption?: Child;
  /** Under 600 px, each row becomes a block and each labelled cell shows its label. */
  stack?: boolean;
  /** A row's class (a highlighted row), if any. */
  rowClass?: (row: T) => string | undefined;
}

export function DataTable<T>({ columns, rows, empty, caption, stack, rowClass }: DataTableProps<T>) {
  return (
    <div class="card table-wrap" tabindex={0}>
      {rows.length === 0 && empty ? (
        empty
      ) : (
        <table class={stack ? "stack" : undefined}>
          {caption ? <caption class="muted small left">{caption}</caption> : null}
          <thead>
            <tr>
              {columns.map((column) => (
                <th scope="col">{column.header}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr class={rowClass?.(row)}>
                {columns.map((column) => (
                  <td class={column.class} data-label={column.label}>
                    {column.cell(row)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
