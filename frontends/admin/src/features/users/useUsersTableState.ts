import { useState } from 'react';
import { readPageSize, writePageSize } from '@console/kit';
import type { UserSearch } from './api';

/** UI state of the users page: paging, the applied search, and which drawer is open. */
export function useUsersTableState(initialEditId: number | null) {
  const [page, setPage] = useState(1);
  const [pageSize, setPageSizeState] = useState(readPageSize);
  const [search, setSearch] = useState<UserSearch>({ keyword: '', group: '' });
  const [adding, setAdding] = useState(false);
  const [editingId, setEditingId] = useState<number | null>(initialEditId);

  const setPageSize = (size: number) => {
    writePageSize(size);
    setPageSizeState(size);
    setPage(1);
  };
  const applySearch = (next: UserSearch) => {
    setSearch(next);
    setPage(1);
  };

  return { page, setPage, pageSize, setPageSize, search, applySearch, adding, setAdding, editingId, setEditingId };
}
