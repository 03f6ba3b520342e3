import { useCallback, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Card, Space, Toast } from '@console/kit';
import { PagedTable } from '@console/kit/data';
import { channelsApi } from './api';
import { isTagRow, type ChannelRow, type TagRow } from './channel-rows';
import { ChannelsFilters } from './ChannelsFilters';
import { ChannelsToolbar } from './ChannelsToolbar';
import { channelColumns } from './columns';
import { BatchTagModal } from './drawers/BatchTagModal';
import { ChannelDrawer } from './drawers/ChannelDrawer';
import { ColumnsModal } from './drawers/ColumnsModal';
import { TagDrawer } from './drawers/TagDrawer';
import { useChannelActions } from './useChannelActions';
import { useChannelsQuery } from './useChannelsQuery';
import { useChannelsTableState } from './useChannelsTableState';

/** /channel (admins): search, the table, and every channel action of spec 001. */
export function ChannelsPage() {
  const { t } = useTranslation('admin');
  const state = useChannelsTableState();
  const query = useChannelsQuery(state.page, state.pageSize, state.query);
  const [groups, setGroups] = useState<string[]>([]);
  const [editingId, setEditingId] = useState<number | null>(null);
  const [editingTag, setEditingTag] = useState<TagRow | null>(null);
  const [batchTagOpen, setBatchTagOpen] = useState(false);
  const [columnsOpen, setColumnsOpen] = useState(false);

  useEffect(() => {
    channelsApi.groups().then(
      (list) => setGroups(Array.isArray(list) ? list : []),
      () => undefined,
    );
  }, []);

  const { reload, patchRow } = query;
  const { selected, setSelected } = state;
  const handlers = useMemo(
    () => ({
      reload,
      patchRow,
      selected,
      clearSelection: () => setSelected([]),
      openAdd: () => setEditingId(0),
      openEdit: setEditingId,
      openTag: setEditingTag,
      openBatchTag: () => setBatchTagOpen(true),
      openColumns: () => setColumnsOpen(true),
    }),
    [reload, patchRow, selected, setSelected],
  );
  const actions = useChannelActions(handlers);
  const columns = useMemo(() => channelColumns(t, actions.row, state.hiddenColumns), [t, actions.row, state.hiddenColumns]);
  const closeDrawer = useCallback(() => setEditingId(null), []);
  const closeTag = useCallback(() => setEditingTag(null), []);

  const submitBatchTag = async (tag: string) => {
    const count = await channelsApi.setTag(selected, tag);
    Toast.success(t('channels.batch.tagged', { count, tag }));
    setSelected([]);
    await reload();
  };

  return (
    <Card title={t('channels.title')}>
      <Space vertical align="start" style={{ width: '100%', marginBottom: 12 }}>
        <ChannelsToolbar
          actions={actions.toolbar}
          selectedCount={selected.length}
          idSort={state.query.idSort}
          tagMode={state.query.tagMode}
          onIdSort={state.setIdSort}
          onTagMode={state.setTagMode}
        />
        <ChannelsFilters groups={groups} onSearch={state.applySearch} />
      </Space>
      <PagedTable<ChannelRow>
        data-testid="channels-table"
        columns={columns}
        query={query}
        paging={state}
        defaultExpandAllRows
        rowSelection={{
          selectedRowKeys: selected,
          // Tag rows stand for their channels; only channels are selected.
          getCheckboxProps: (row) => ({ disabled: Boolean(row && isTagRow(row)) }),
          onChange: (keys) => setSelected((keys ?? []).map(Number).filter((id) => id > 0)),
        }}
      />
      <ChannelDrawer channelId={editingId} groups={groups} onClose={closeDrawer} onSaved={() => void reload()} />
      <TagDrawer tag={editingTag} groups={groups} onClose={closeTag} onSaved={() => void reload()} />
      <BatchTagModal count={selected.length} visible={batchTagOpen} onSubmit={submitBatchTag} onClose={() => setBatchTagOpen(false)} />
      <ColumnsModal
        visible={columnsOpen}
        hidden={state.hiddenColumns}
        onChange={state.setHiddenColumns}
        onClose={() => setColumnsOpen(false)}
      />
    </Card>
  );
}
