export const DEFAULT_PAGE_SIZE = 10;
export const MAX_PAGE_SIZE = 100;

export interface PageRequest {
  page: number;
  pageSize: number;
  offset: number;
}

export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  page_size: number;
}

/** new-api's paging: `p` is 1-based; the size comes from `page_size`, then `ps`, then `size`; max 100. */
export function parsePage(query: Record<string, unknown>): PageRequest {
  const page = Math.max(1, toInt(query.p) ?? 1);
  const pageSize = pageSizeOf(query);
  return { page, pageSize, offset: (page - 1) * pageSize };
}

/**
 * The task log's paging (new-api's `/api/task/`): `p` is 0-based, and a missing, negative or junk `p` is the
 * first page; the size is read as parsePage reads it. The list answers a plain array, never a Page.
 */
export function parseZeroBasedPage(query: Record<string, unknown>): PageRequest {
  const page = toInt(query.p) ?? 0;
  const pageSize = pageSizeOf(query);
  return { page, pageSize, offset: page * pageSize };
}

export function toPage<T>(items: T[], total: number, request: PageRequest): Page<T> {
  return { items, total, page: request.page, page_size: request.pageSize };
}

function pageSizeOf(query: Record<string, unknown>): number {
  const requested = toInt(query.page_size) ?? toInt(query.ps) ?? toInt(query.size) ?? DEFAULT_PAGE_SIZE;
  return Math.min(MAX_PAGE_SIZE, requested < 1 ? DEFAULT_PAGE_SIZE : requested);
}

function toInt(value: unknown): number | undefined {
  if (typeof value !== 'string' || !/^\d{1,9}$/.test(value)) return undefined;
  return Number(value);
}
