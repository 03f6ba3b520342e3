import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { Modal, Toast } from '@console/kit';
import type { ChannelView } from '../../contracts';
import { channelsApi } from './api';
import type { TagRow } from './channel-rows';
import type { ChannelActions } from './columns';
import type { ToolbarActions } from './ChannelsToolbar';

interface Handlers {
  reload(): Promise<void>;
  patchRow(id: number, patch: Partial<ChannelView>): void;
  selected: number[];
  clearSelection(): void;
  openAdd(): void;
  openEdit(id: number): void;
  openTag(tag: TagRow): void;
  openBatchTag(): void;
  openColumns(): void;
}

/** Runs one call; the API client has already shown a failure, so only success needs a word here. */
async function attempt<T>(work: () => Promise<T>, success?: (result: T) => string): Promise<T | undefined> {
  try {
    const result = await work();
    if (success) Toast.success(success(result));
    return result;
  } catch {
    return undefined;
  }
}

/** What every button of the channels page does: a call, a toast with the outcome, and a refreshed row or list. */
export function useChannelActions(handlers: Handlers): { row: ChannelActions; toolbar: ToolbarActions } {
  const { t } = useTranslation('admin');
  return useMemo(() => {
    const { reload, patchRow } = handlers;
    const row: ChannelActions = {
      test: (channel, model) =>
        void attempt(async () => {
          const result = await channelsApi.test(channel.id, model);
          if (!result.success) return Toast.error(result.message || t('channels.testFailed'));
          patchRow(channel.id, { response_time: Math.round(result.time * 1000), test_time: Math.floor(Date.now() / 1000) });
          Toast.success(
            t('channels.tested', { name: channel.name, model: model ?? channel.test_model ?? '', seconds: result.time.toFixed(2) }),
          );
        }),
      setStatus: (channel, enabled) =>
        void attempt(
          async () => patchRow(channel.id, { status: (await channelsApi.update({ id: channel.id, status: enabled ? 1 : 2 })).status }),
          () => t(enabled ? 'channels.enabled' : 'channels.disabled'),
        ),
      edit: (channel) => handlers.openEdit(channel.id),
      copy: (channel) =>
        void attempt(
          () => channelsApi.copy(channel.id),
          (result) => t('channels.copied', { id: result.id }),
        ).then(() => reload()),
      remove: (channel) =>
        void attempt(
          () => channelsApi.remove(channel.id),
          () => t('channels.deleted'),
        ).then(() => reload()),
      updateBalance: (channel) =>
        void attempt(
          async () => {
            const balance = await channelsApi.updateBalance(channel.id);
            patchRow(channel.id, { balance, balance_updated_time: Math.floor(Date.now() / 1000) });
            return balance;
          },
          (balance) => t('channels.balanceUpdated', { name: channel.name, balance: balance.toFixed(2) }),
        ),
      saveNumber: async (channel, field, value) => {
        const saved = await channelsApi.update({ id: channel.id, [field]: value });
        patchRow(channel.id, { [field]: saved[field] });
        Toast.success(t('channels.saved'));
      },
      setTagEnabled: (tag, enabled) =>
        void attempt(
          () => channelsApi.setTagEnabled(tag.tag, enabled),
          () => t(enabled ? 'channels.tagEnabled' : 'channels.tagDisabled', { tag: tag.tag }),
        ).then(() => reload()),
      editTag: (tag) => handlers.openTag(tag),
      saveTagNumber: async (tag, field, value) => {
        await channelsApi.editTag({
          tag: tag.tag,
          new_tag: null,
          models: null,
          groups: null,
          model_mapping: null,
          priority: null,
          weight: null,
          [field]: value,
        });
        Toast.success(t('channels.saved'));
        await reload();
      },
    };
    const toolbar: ToolbarActions = {
      add: handlers.openAdd,
      testAll: () =>
        void attempt(
          () => channelsApi.testAll(),
          () => t('channels.testAllStarted'),
        ),
      updateAllBalances: () =>
        void attempt(
          () => channelsApi.updateAllBalances(),
          (result) => t('channels.balancesUpdated', { count: result.updated }),
        ).then(() => reload()),
      removeDisabled: () =>
        void attempt(
          () => channelsApi.removeDisabled(),
          (count) => t('channels.removedDisabled', { count }),
        ).then(() => reload()),
      fixAbilities: () =>
        void attempt(
          () => channelsApi.fixAbilities(),
          (result) => t('channels.fixed', result),
        ).then(() => reload()),
      batchTag: handlers.openBatchTag,
      batchStatus: (enabled) =>
        void attempt(
          async () => {
            // There is no batch status call; one PUT per channel, as new-api's console does.
            for (const id of handlers.selected) await channelsApi.update({ id, status: enabled ? 1 : 2 });
            return handlers.selected.length;
          },
          (count) => t(enabled ? 'channels.batch.enabled' : 'channels.batch.disabled', { count }),
        ).then(() => reload()),
      batchRemove: () =>
        Modal.confirm({
          title: t('channels.confirm.batchDelete', { count: handlers.selected.length }),
          okText: t('submit'),
          cancelText: t('cancel'),
          onOk: () =>
            attempt(
              () => channelsApi.removeMany(handlers.selected),
              (count) => t('channels.batch.deleted', { count }),
            ).then(() => {
              handlers.clearSelection();
              return reload();
            }),
        }),
      columns: handlers.openColumns,
    };
    return { row, toolbar };
  }, [handlers, t]);
}
