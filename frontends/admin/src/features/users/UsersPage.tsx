import { useCallback, useEffect, useMemo, useState } from 'react';
import { Route, Routes, useParams } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { Card, Toast, i18n } from '@console/kit';
import { PagedTable } from '@console/kit/data';
import { usersApi, type AdminUser, type ManageAction } from './api';
import { userColumns } from './columns';
import { useUsersQuery } from './useUsersQuery';
import { useUsersTableState } from './useUsersTableState';
import { UsersFilters } from './UsersFilters';
import { AddUserDrawer } from './modals/AddUserDrawer';
import { EditUserDrawer } from './modals/EditUserDrawer';

function UsersManagement() {
  const { t } = useTranslation('admin');
  const { id } = useParams();
  const state = useUsersTableState(id ? Number(id) : null);
  const query = useUsersQuery(state.page, state.pageSize, state.search);
  const [groups, setGroups] = useState<string[]>([]);

  useEffect(() => {
    usersApi.groups().then(setGroups, () => undefined);
  }, []);

  const { patchRow } = query;
  const { setEditingId } = state;
  const onManage = useCallback(
    async (user: AdminUser, action: ManageAction) => {
      try {
        const result = await usersApi.manage(user.id, action);
        const deleted = action === 'delete' ? { DeletedAt: new Date().toISOString() } : {};
        patchRow(user.id, { ...(result ?? {}), ...deleted });
        Toast.success(i18n.t('kit:done'));
      } catch {
        // Already reported by the API client.
      }
    },
    [patchRow],
  );

  const columns = useMemo(
    () => userColumns({ t, onManage: (user, action) => void onManage(user, action), onEdit: (user) => setEditingId(user.id) }),
    [t, onManage, setEditingId],
  );
  const closeEdit = useCallback(() => setEditingId(null), [setEditingId]);

  return (
    <Card title={t('users.title')}>
      <UsersFilters groups={groups} onSearch={state.applySearch} onAdd={() => state.setAdding(true)} />
      <PagedTable data-testid="users-table" columns={columns} query={query} paging={state} />
      <AddUserDrawer visible={state.adding} onClose={() => state.setAdding(false)} onCreated={() => void query.reload()} />
      <EditUserDrawer userId={state.editingId} groups={groups} onClose={closeEdit} onSaved={() => void query.reload()} />
    </Card>
  );
}

/** /user lists users; /user/edit/:id opens the same list with that user's drawer. */
export function UsersPage() {
  return (
    <Routes>
      <Route path="edit/:id" element={<UsersManagement />} />
      <Route path="*" element={<UsersManagement />} />
    </Routes>
  );
}
