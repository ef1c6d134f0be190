import { useState, type ReactNode } from 'react';

/** Cursor paging over an API list: the cursor asked with, and the ones before it for going back. */
export interface CursorPaging {
  cursor: string;
  canGoBack: boolean;
  back: () => void;
  forward: (next: string) => void;
  /** Back to the first page (after a new search or filter). */
  reset: () => void;
}

export function useCursorPaging(): CursorPaging {
  const [cursor, setCursor] = useState('');
  const [history, setHistory] = useState<string[]>([]);
  return {
    cursor,
    canGoBack: history.length > 0,
    back: () => {
      setCursor(history[history.length - 1] ?? '');
      setHistory((h) => h.slice(0, -1));
    },
    forward: (next) => {
      setHistory((h) => [...h, cursor]);
      setCursor(next);
    },
    reset: () => {
      setCursor('');
      setHistory([]);
    },
  };
}

/** Previous and next page buttons, with a status line (loading, a count). */
export function CursorPager(p: {
  paging: CursorPaging;
  nextCursor: string | null | undefined;
  loading: boolean;
  summary?: ReactNode;
}) {
  const next = p.nextCursor;
  return (
    <div className="pager">
      <span className="muted" role="status">
        {p.loading ? 'Loading…' : p.summary}
      </span>
      <button type="button" disabled={!p.paging.canGoBack || p.loading} onClick={p.paging.back}>
        Previous page
      </button>
      <button type="button" disabled={!next || p.loading} onClick={() => next && p.paging.forward(next)}>
        Next page
      </button>
    </div>
  );
}

/** A table's column headers; `actions` adds the unlabelled-looking (but named) actions column. */
export function TableHead({
  columns,
  actions = false,
}: {
  columns: readonly ReactNode[];
  actions?: boolean;
}) {
  return (
    <thead>
      <tr>
        {columns.map((c, i) => (
          <th scope="col" key={i}>
            {c}
          </th>
        ))}
        {actions && (
          <th scope="col">
            <span className="visually-hidden">Actions</span>
          </th>
        )}
      </tr>
    </thead>
  );
}
