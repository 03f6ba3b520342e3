import { usePagedQuery, type FetchedPage } from '@console/kit';
import { tokensApi, type Token } from './api';

export interface TokenSearch {
  keyword: string;
  token: string;
}

/** The plain list, or a search when either field is set; both paged. */
async function fetchTokensPage(page: number, pageSize: number, search: TokenSearch): Promise<FetchedPage<Token>> {
  if (!search.keyword && !search.token) return tokensApi.list(page, pageSize);
  const found = await tokensApi.search(search.keyword, search.token, page, pageSize);
  // An older gateway answers a search with a bare array: then the page is all there is.
  if (Array.isArray(found)) return { items: found, total: found.length };
  const items = found.items ?? [];
  return { items, total: found.total ?? items.length };
}

/** Server data for the tokens table: one page of rows and the total. */
export function useTokensQuery(page: number, pageSize: number, search: TokenSearch) {
  return usePagedQuery(fetchTokensPage, page, pageSize, search);
}
