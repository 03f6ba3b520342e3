import { useState } from 'react';
import { STORAGE_KEYS, readJson, readPageSize, writeJson, writePageSize } from '@console/kit';
import type { ChannelQuery, ChannelSearch } from './api';

// Tag mode is kept like id-sort (spec 001 §9 "id-sort persists"); new-api's console names it this way.
const TAG_MODE_KEY = 'tag-mode';

const readFlag = (key: string) => localStorage.getItem(key) === 'true';

/** UI state of the channels page: paging, the applied search, the list switches and the open drawers. */
export function useChannelsTableState() {
  const [page, setPage] = useState(1);
  const [pageSize, setPageSizeState] = useState(readPageSize);
  const [query, setQuery] = useState<ChannelQuery>(() => ({
    keyword: '',
    group: '',
    model: '',
    idSort: readFlag(STORAGE_KEYS.idSort),
    tagMode: readFlag(TAG_MODE_KEY),
  }));
  const [hiddenColumns, setHiddenColumnsState] = useState<string[]>(() => readJson<string[]>(STORAGE_KEYS.channelsTableColumns) ?? []);
  const [selected, setSelected] = useState<number[]>([]);

  const setPageSize = (size: number) => {
    writePageSize(size);
    setPageSizeState(size);
    setPage(1);
  };
  const applySearch = (search: ChannelSearch) => {
    setQuery((current) => ({ ...current, ...search }));
    setPage(1);
  };
  const setIdSort = (idSort: boolean) => {
    localStorage.setItem(STORAGE_KEYS.idSort, String(idSort));
    setQuery((current) => ({ ...current, idSort }));
  };
  const setTagMode = (tagMode: boolean) => {
    localStorage.setItem(TAG_MODE_KEY, String(tagMode));
    setQuery((current) => ({ ...current, tagMode }));
    setSelected([]);
    setPage(1);
  };
  const setHiddenColumns = (keys: string[]) => {
    writeJson(STORAGE_KEYS.channelsTableColumns, keys);
    setHiddenColumnsState(keys);
  };

  return {
    page,
    setPage,
    pageSize,
    setPageSize,
    query,
    applySearch,
    setIdSort,
    setTagMode,
    hiddenColumns,
    setHiddenColumns,
    selected,
    setSelected,
  };
}

export type ChannelsTableState = ReturnType<typeof useChannelsTableState>;
