import { useCallback, useEffect, useState } from 'react';
import { usersApi, type AdminUser, type UserSearch } from './api';

/** Server data for the users table: one page of rows and the total. */
export function useUsersQuery(page: number, pageSize: number, search: UserSearch) {
  const [rows, setRows] = useState<AdminUser[]>([]);
  const [total, setTotal] = useState(0);
  const [loading, setLoading] = useState(false);

  const reload = useCallback(async () => {
    setLoading(true);
    try {
      const result = await usersApi.list(page, pageSize, search);
      setRows(result.items ?? []);
      setTotal(result.total ?? 0);
    } catch {
      // The API client has shown the error; keep the rows we had.
    } finally {
      setLoading(false);
    }
  }, [page, pageSize, search]);

  useEffect(() => {
    void reload();
  }, [reload]);

  /** After a manage action the row takes its status and role from the server's answer. */
  const patchRow = useCallback(
    (id: number, patch: Partial<AdminUser>) => setRows((current) => current.map((row) => (row.id === id ? { ...row, ...patch } : row))),
    [],
  );

  return { rows, total, loading, reload, patchRow };
}
