import { useCallback, useEffect, useState } from 'react';
import { tokensApi, type Token } from './api';

export interface TokenSearch {
  keyword: string;
  token: string;
}

/** Server data for the tokens table: the plain list or a search, both paged. */
export function useTokensQuery(page: number, pageSize: number, search: TokenSearch) {
  const [rows, setRows] = useState<Token[]>([]);
  const [total, setTotal] = useState(0);
  const [loading, setLoading] = useState(false);

  const reload = useCallback(async () => {
    setLoading(true);
    try {
      if (search.keyword || search.token) {
        const found = await tokensApi.search(search.keyword, search.token, page, pageSize);
        const items = Array.isArray(found) ? found : (found.items ?? []);
        setRows(items);
        setTotal(Array.isArray(found) ? items.length : (found.total ?? items.length));
      } else {
        const result = await tokensApi.list(page, pageSize);
        setRows(result.items ?? []);
        setTotal(result.total ?? 0);
      }
    } catch {
      // The API client has shown the error; keep the rows we had.
    } finally {
      setLoading(false);
    }
  }, [page, pageSize, search]);

  useEffect(() => {
    void reload();
  }, [reload]);

  const patchRow = useCallback(
    (id: number, patch: Partial<Token>) => setRows((current) => current.map((row) => (row.id === id ? { ...row, ...patch } : row))),
    [],
  );

  return { rows, total, loading, reload, patchRow };
}
