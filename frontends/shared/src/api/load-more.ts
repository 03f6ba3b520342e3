// The arithmetic of a list the server pages without a total (the task log, spec 001): pages are 0-based on
// the server, 1-based in the pager, and the rows loaded so far are kept and appended to.

/** The rows once server page `p` arrived: it takes its own place, so fetching a page again never duplicates rows. */
export function placePage<Row>(loaded: Row[], p: number, pageSize: number, fetched: Row[]): Row[] {
  return [...loaded.slice(0, p * pageSize), ...fetched];
}

/** A full page means the server may hold more; a short one is the end. */
export function mayHaveMore(fetched: unknown[], pageSize: number): boolean {
  return fetched.length >= pageSize;
}

/** The pager's total: the rows loaded, plus one page more while more may exist (the classic one-api pager). */
export function pagerTotal(loaded: number, more: boolean, pageSize: number): number {
  return loaded + (more ? pageSize : 0);
}

/**
 * The 0-based server page to fetch while the pager shows (1-based) `page`: the next one once the user has
 * reached the last loaded page (or the page after it), nothing while the end is known.
 */
export function nextServerPage(page: number, loaded: number, pageSize: number, more: boolean): number | undefined {
  if (!more) return undefined;
  const loadedPages = Math.ceil(loaded / pageSize);
  return page >= loadedPages ? loadedPages : undefined;
}

/** The rows of (1-based) `page`. */
export function rowsOfPage<Row>(loaded: Row[], page: number, pageSize: number): Row[] {
  return loaded.slice((page - 1) * pageSize, page * pageSize);
}
