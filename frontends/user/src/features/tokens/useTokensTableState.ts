import { useState } from 'react';
import { readPageSize, writePageSize } from '@console/kit';
import type { TokenSearch } from './useTokensQuery';

/** The drawer is closed (null), creating ('new'), or editing one token id. */
export type TokenDrawer = null | 'new' | number;

export function useTokensTableState() {
  const [page, setPage] = useState(1);
  const [pageSize, setPageSizeState] = useState(readPageSize);
  const [search, setSearch] = useState<TokenSearch>({ keyword: '', token: '' });
  const [selectedIds, setSelectedIds] = useState<number[]>([]);
  const [drawer, setDrawer] = useState<TokenDrawer>(null);

  const setPageSize = (size: number) => {
    writePageSize(size);
    setPageSizeState(size);
    setPage(1);
  };
  const applySearch = (next: TokenSearch) => {
    setSearch(next);
    setPage(1);
  };

  return { page, setPage, pageSize, setPageSize, search, applySearch, selectedIds, setSelectedIds, drawer, setDrawer };
}
