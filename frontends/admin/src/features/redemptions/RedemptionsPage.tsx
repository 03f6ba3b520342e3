import { useCallback, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { IconSearch } from '@douyinfe/semi-icons';
import { Button, Card, Input, Space, Toast, copyText, readPageSize, usePagedQuery, writePageSize } from '@console/kit';
import { PagedTable, Popconfirm } from '@console/kit/data';
import type { RedemptionView } from '../../contracts';
import { redemptionsApi } from './api';
import { redemptionColumns, type RedemptionActions } from './columns';
import { KeysModal } from './KeysModal';
import { RedemptionDrawer } from './RedemptionDrawer';

/** /redemption (admins): list and search codes, create them in batches, edit, enable, disable, delete. */
export function RedemptionsPage() {
  const { t } = useTranslation('admin');
  const [page, setPage] = useState(1);
  const [pageSize, setPageSizeState] = useState(readPageSize);
  const [draft, setDraft] = useState('');
  const [keyword, setKeyword] = useState('');
  const [editingId, setEditingId] = useState<number | null>(null);
  const [newKeys, setNewKeys] = useState<string[] | null>(null);
  const query = usePagedQuery(redemptionsApi.list, page, pageSize, keyword);
  const { reload, patchRow } = query;

  const paging = {
    page,
    pageSize,
    setPage,
    setPageSize: (size: number) => {
      writePageSize(size);
      setPageSizeState(size);
      setPage(1);
    },
  };
  const search = () => {
    setKeyword(draft.trim());
    setPage(1);
  };

  const actions = useMemo<RedemptionActions>(
    () => ({
      copy: (code) => void copyText(code.key, t('redemptions.copied')),
      setStatus: (code, enabled) =>
        void redemptionsApi.setStatus(code.id, enabled ? 1 : 2).then(
          (saved) => {
            patchRow(code.id, saved as Partial<RedemptionView>);
            Toast.success(t(enabled ? 'redemptions.enabled' : 'redemptions.disabled'));
          },
          () => undefined,
        ),
      edit: (code) => setEditingId(code.id),
      remove: (code) =>
        void redemptionsApi.remove(code.id).then(
          () => {
            Toast.success(t('redemptions.deleted'));
            void reload();
          },
          () => undefined,
        ),
    }),
    [t, patchRow, reload],
  );
  const columns = useMemo(() => redemptionColumns(t, actions), [t, actions]);
  const closeDrawer = useCallback(() => setEditingId(null), []);

  const removeInvalid = () =>
    void redemptionsApi.removeInvalid().then(
      (count) => {
        Toast.success(t('redemptions.removedInvalid', { count }));
        void reload();
      },
      () => undefined,
    );

  return (
    <Card title={t('redemptions.title')}>
      <Space wrap style={{ marginBottom: 16, width: '100%', justifyContent: 'space-between' }}>
        <Space wrap>
          <Button theme="solid" onClick={() => setEditingId(0)} data-testid="add-redemption">
            {t('redemptions.add')}
          </Button>
          <Popconfirm title={t('redemptions.confirm.removeInvalid')} onConfirm={removeInvalid}>
            <span style={{ display: 'inline-block' }}>
              <Button type="danger">{t('redemptions.removeInvalid')}</Button>
            </span>
          </Popconfirm>
        </Space>
        <Space>
          <Input
            prefix={<IconSearch />}
            value={draft}
            onChange={setDraft}
            onEnterPress={search}
            placeholder={t('redemptions.keyword')}
            showClear
            style={{ width: 260 }}
            data-testid="redemption-keyword"
          />
          <Button onClick={search}>{t('users.search')}</Button>
        </Space>
      </Space>
      <PagedTable<RedemptionView> data-testid="redemptions-table" columns={columns} query={query} paging={paging} />
      <RedemptionDrawer codeId={editingId} onClose={closeDrawer} onCreated={setNewKeys} onSaved={() => void reload()} />
      <KeysModal keys={newKeys} onClose={() => setNewKeys(null)} />
    </Card>
  );
}
