import { usePagedQuery } from '@console/kit';
import { usersApi, type UserSearch } from './api';

/** Server data for the users table: one page of rows and the total. */
export function useUsersQuery(page: number, pageSize: number, search: UserSearch) {
  return usePagedQuery(usersApi.list, page, pageSize, search);
}
