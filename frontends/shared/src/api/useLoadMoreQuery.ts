import { useCallback, useEffect, useMemo, useState } from 'react';
import { mayHaveMore, nextServerPage, pagerTotal, placePage, rowsOfPage } from './load-more';

/** One 0-based page of a list the server answers as a plain array, without a total (the task log). */
export type ListPageFetcher<Row, Search> = (p: number, pageSize: number, search: Search) => Promise<Row[] | null | undefined>;

interface Loaded<Row, Search> {
  fetchPage: ListPageFetcher<Row, Search>;
  pageSize: number;
  search: Search;
  /** Bumped by every fresh start (a reload included): answers meant for an older one are dropped. */
  generation: number;
  /** The pager's page, 1-based. */
  page: number;
  rows: Row[];
  more: boolean;
}

function fresh<Row, Search>(
  fetchPage: ListPageFetcher<Row, Search>,
  pageSize: number,
  search: Search,
  generation: number,
): Loaded<Row, Search> {
  return { fetchPage, pageSize, search, generation, page: 1, rows: [], more: true };
}

/**
 * Server data for a table over a list without a total (spec 001's task log): the rows loaded so far are
 * kept, and the next 0-based server page is fetched and appended when the user reaches the last loaded
 * page. The pager's total is what is loaded plus one page while the last fetch was full. A new search,
 * page size or fetcher starts again from p=0 on the first page, so the hook owns the (1-based) pager page.
 * `fetchPage` and `search` must keep their identities across renders (see usePagedQuery).
 */
export function useLoadMoreQuery<Row extends { id: number }, Search>(
  fetchPage: ListPageFetcher<Row, Search>,
  pageSize: number,
  search: Search,
) {
  const [stored, setStored] = useState(() => fresh(fetchPage, pageSize, search, 0));
  const [loading, setLoading] = useState(true);
  let state = stored;
  if (stored.fetchPage !== fetchPage || stored.pageSize !== pageSize || stored.search !== search) {
    // A new query: start again while rendering, before anything shows the old rows under the new filters.
    state = fresh(fetchPage, pageSize, search, stored.generation + 1);
    setStored(state);
  }
  const { generation, page, rows: loadedRows, more } = state;

  const wanted = nextServerPage(page, loadedRows.length, pageSize, more);
  useEffect(() => {
    if (wanted === undefined) return;
    let live = true;
    const settle = (update: (previous: Loaded<Row, Search>) => Loaded<Row, Search>) => {
      if (live) setStored((previous) => (previous.generation === generation ? update(previous) : previous));
    };
    setLoading(true);
    fetchPage(wanted, pageSize, search)
      .then(
        (answer) => {
          const fetched = answer ?? [];
          settle((previous) => ({
            ...previous,
            rows: placePage(previous.rows, wanted, pageSize, fetched),
            more: mayHaveMore(fetched, pageSize),
          }));
        },
        // The API client has shown the error; keep the rows loaded and ask no more until the next query.
        () => settle((previous) => ({ ...previous, more: false })),
      )
      .finally(() => {
        if (live) setLoading(false);
      });
    return () => {
      live = false;
      setLoading(false);
    };
  }, [wanted, generation, fetchPage, pageSize, search]);

  const setPage = useCallback((next: number) => setStored((previous) => ({ ...previous, page: next })), []);
  const reload = useCallback(
    () => setStored((previous) => fresh(previous.fetchPage, previous.pageSize, previous.search, previous.generation + 1)),
    [],
  );

  const total = pagerTotal(loadedRows.length, more, pageSize);
  const lastPage = Math.max(1, Math.ceil(total / pageSize));
  // The page after the last loaded one turned out empty: go back to the last page there is.
  useEffect(() => {
    if (!loading && page > lastPage) setPage(lastPage);
  }, [loading, page, lastPage, setPage]);

  const rows = useMemo(() => rowsOfPage(loadedRows, page, pageSize), [loadedRows, page, pageSize]);
  return { rows, total, loading, more, loadedCount: loadedRows.length, page, setPage, reload };
}
