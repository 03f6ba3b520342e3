import { useState } from 'react';
import { nowSeconds, readPageSize, writePageSize } from '@console/kit';
import type { LogFilters } from './api';

/** new-api's default window: from today 00:00 to an hour from now, so calls made while the page is open still show. */
export function defaultLogFilters(now = new Date()): LogFilters {
  const midnight = new Date(now.getFullYear(), now.getMonth(), now.getDate());
  return {
    type: 0,
    token_name: '',
    model_name: '',
    group: '',
    start_timestamp: Math.floor(midnight.getTime() / 1000),
    end_timestamp: nowSeconds() + 3600,
    username: '',
    channel: '',
  };
}

/** UI state of the logs page: the applied filters and the page. The page size is remembered for every list. */
export function useLogsTableState() {
  const [page, setPage] = useState(1);
  const [pageSize, setPageSizeState] = useState(readPageSize);
  const [filters, setFilters] = useState<LogFilters>(() => defaultLogFilters());

  const setPageSize = (size: number) => {
    writePageSize(size);
    setPageSizeState(size);
    setPage(1);
  };
  const applyFilters = (next: LogFilters) => {
    setFilters(next);
    setPage(1);
  };

  return { page, setPage, pageSize, setPageSize, filters, applyFilters };
}
