import { useCallback, useEffect, useState } from 'react';

/** One page as a list endpoint answers it; an older gateway may leave either field out. */
export interface FetchedPage<Row> {
  items?: Row[] | null;
  total?: number | null;
  /** The server stopped counting at `total`: more rows match (a log list on a big table). */
  total_capped?: boolean;
}

export type PageFetcher<Row, Search> = (page: number, pageSize: number, search: Search) => Promise<FetchedPage<Row>>;

/**
 * Server data for a paged table: one page of rows and the total, fetched again whenever the page, the page
 * size or the search changes. `fetchPage` must keep its identity across renders (a module-level function
 * or an API object's method): a new function each render would refetch on every render.
 */
export function usePagedQuery<Row extends { id: number }, Search>(
  fetchPage: PageFetcher<Row, Search>,
  page: number,
  pageSize: number,
  search: Search,
) {
  const [rows, setRows] = useState<Row[]>([]);
  const [total, setTotal] = useState(0);
  const [capped, setCapped] = useState(false);
  const [loading, setLoading] = useState(false);

  const reload = useCallback(async () => {
    setLoading(true);
    try {
      const result = await fetchPage(page, pageSize, search);
      setRows(result.items ?? []);
      setTotal(result.total ?? 0);
      setCapped(result.total_capped === true);
    } catch {
      // The API client has shown the error; keep the rows we had.
    } finally {
      setLoading(false);
    }
  }, [fetchPage, page, pageSize, search]);

  useEffect(() => {
    void reload();
  }, [reload]);

  /** A row action shows the server's answer in its row without refetching the whole page. */
  const patchRow = useCallback(
    (id: number, patch: Partial<Row>) => setRows((current) => current.map((row) => (row.id === id ? { ...row, ...patch } : row))),
    [],
  );

  return { rows, total, capped, loading, reload, patchRow };
}
