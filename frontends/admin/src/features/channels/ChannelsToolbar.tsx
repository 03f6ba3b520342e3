import { useTranslation } from 'react-i18next';
import { Button, Space, Typography } from '@console/kit';
import { Popconfirm, Switch } from '@console/kit/data';

export interface ToolbarActions {
  add(): void;
  testAll(): void;
  updateAllBalances(): void;
  removeDisabled(): void;
  fixAbilities(): void;
  batchTag(): void;
  batchStatus(enabled: boolean): void;
  batchRemove(): void;
  columns(): void;
}

interface ChannelsToolbarProps {
  actions: ToolbarActions;
  selectedCount: number;
  idSort: boolean;
  tagMode: boolean;
  onIdSort(value: boolean): void;
  onTagMode(value: boolean): void;
}

/** Confirm first: these act on every channel at once. */
function Confirmed({ title, onConfirm, children, testId }: { title: string; onConfirm(): void; children: string; testId: string }) {
  return (
    <Popconfirm title={title} onConfirm={onConfirm}>
      <span style={{ display: 'inline-block' }}>
        <Button data-testid={testId}>{children}</Button>
      </span>
    </Popconfirm>
  );
}

export function ChannelsToolbar({ actions, selectedCount, idSort, tagMode, onIdSort, onTagMode }: ChannelsToolbarProps) {
  const { t } = useTranslation('admin');
  const none = selectedCount === 0;
  return (
    <Space wrap style={{ marginBottom: 12 }}>
      <Button theme="solid" onClick={actions.add} data-testid="add-channel">
        {t('channels.add')}
      </Button>
      <Confirmed title={t('channels.confirm.testAll')} onConfirm={actions.testAll} testId="channels-test-all">
        {t('channels.action.testAll')}
      </Confirmed>
      <Confirmed title={t('channels.confirm.updateBalances')} onConfirm={actions.updateAllBalances} testId="channels-update-balances">
        {t('channels.action.updateBalances')}
      </Confirmed>
      <Confirmed title={t('channels.confirm.removeDisabled')} onConfirm={actions.removeDisabled} testId="channels-remove-disabled">
        {t('channels.action.removeDisabled')}
      </Confirmed>
      <Confirmed title={t('channels.confirm.fix')} onConfirm={actions.fixAbilities} testId="channels-fix">
        {t('channels.action.fix')}
      </Confirmed>
      <Space spacing={4} data-testid="channels-batch">
        <Typography.Text type="tertiary">{t('channels.batch.title', { count: selectedCount })}</Typography.Text>
        <Button disabled={none} onClick={actions.batchTag} data-testid="batch-tag">
          {t('channels.batch.tag')}
        </Button>
        <Button disabled={none} onClick={() => actions.batchStatus(true)} data-testid="batch-enable">
          {t('channels.batch.enable')}
        </Button>
        <Button disabled={none} type="warning" onClick={() => actions.batchStatus(false)} data-testid="batch-disable">
          {t('channels.batch.disable')}
        </Button>
        <Button disabled={none} type="danger" onClick={actions.batchRemove} data-testid="batch-delete">
          {t('channels.batch.delete')}
        </Button>
      </Space>
      <Button onClick={actions.columns} data-testid="channels-columns">
        {t('channels.columns')}
      </Button>
      <Space spacing={4}>
        <Typography.Text>{t('channels.idSort')}</Typography.Text>
        <Switch checked={idSort} onChange={onIdSort} data-testid="channels-id-sort" />
      </Space>
      <Space spacing={4}>
        <Typography.Text>{t('channels.tagMode')}</Typography.Text>
        <Switch checked={tagMode} onChange={onTagMode} data-testid="channels-tag-mode" />
      </Space>
    </Space>
  );
}
