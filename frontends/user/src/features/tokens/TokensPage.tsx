import { useCallback, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { Banner, Card, Toast } from '@console/kit';
import { PagedTable } from '@console/kit/data';
import { tokensApi } from './api';
import { chatLinks } from './chat-links';
import { tokenColumns } from './columns';
import { useTokenActions } from './useTokenActions';
import { useTokensQuery } from './useTokensQuery';
import { useTokensTableState } from './useTokensTableState';
import { TokensToolbar } from './TokensToolbar';
import { EditTokenDrawer } from './modals/EditTokenDrawer';

export function TokensPage() {
  const { t } = useTranslation('user');
  const state = useTokensTableState();
  const query = useTokensQuery(state.page, state.pageSize, state.search);
  const { setDrawer, setSelectedIds, selectedIds } = state;
  const { reload, patchRow } = query;
  const edit = useCallback((id: number) => setDrawer(id), [setDrawer]);
  const actions = useTokenActions({ patchRow, reload, edit });
  const columns = useMemo(() => tokenColumns(t, actions, chatLinks()), [t, actions]);
  const closeDrawer = useCallback(() => setDrawer(null), [setDrawer]);

  const deleteSelected = async () => {
    if (selectedIds.length === 0) return Toast.warning(t('tokens.selectFirst'));
    try {
      await tokensApi.removeMany(selectedIds);
      Toast.success(t('tokens.deleted'));
      setSelectedIds([]);
      await reload();
    } catch {
      // Already reported by the API client.
    }
  };

  return (
    <Card title={t('tokens.title')}>
      <Banner type="warning" closeIcon={null} description={t('tokens.warning')} style={{ marginBottom: 16 }} />
      <TokensToolbar
        selectedCount={selectedIds.length}
        onCreate={() => setDrawer('new')}
        onDeleteSelected={() => void deleteSelected()}
        onSearch={state.applySearch}
      />
      <PagedTable
        data-testid="tokens-table"
        columns={columns}
        query={query}
        paging={state}
        rowSelection={{ selectedRowKeys: selectedIds, onChange: (keys) => setSelectedIds((keys ?? []).map(Number)) }}
      />
      <EditTokenDrawer drawer={state.drawer} onClose={closeDrawer} onSaved={() => void reload()} />
    </Card>
  );
}
