import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { IconSearch } from '@douyinfe/semi-icons';
import { Button, Input, Space } from '@console/kit';
import { Select } from '@console/kit/data';
import type { ChannelSearch } from './api';

/** Search by keyword (id, name, key or base URL), group and model. */
export function ChannelsFilters({ groups, onSearch }: { groups: string[]; onSearch(search: ChannelSearch): void }) {
  const { t } = useTranslation('admin');
  const [search, setSearch] = useState<ChannelSearch>({ keyword: '', group: '', model: '' });
  const set = (key: keyof ChannelSearch) => (value: string) => setSearch((current) => ({ ...current, [key]: value }));
  const submit = () => onSearch(search);
  return (
    <Space wrap>
      <Input
        prefix={<IconSearch />}
        value={search.keyword}
        onChange={set('keyword')}
        onEnterPress={submit}
        placeholder={t('channels.search.keyword')}
        showClear
        style={{ width: 240 }}
        data-testid="channel-keyword"
      />
      <Input
        value={search.model}
        onChange={set('model')}
        onEnterPress={submit}
        placeholder={t('channels.search.model')}
        showClear
        style={{ width: 180 }}
      />
      <Select
        value={search.group || undefined}
        onChange={(value) => set('group')(typeof value === 'string' ? value : '')}
        placeholder={t('channels.search.group')}
        optionList={groups.map((name) => ({ label: name, value: name }))}
        showClear
        style={{ width: 150 }}
      />
      <Button onClick={submit} data-testid="channel-search">
        {t('users.search')}
      </Button>
    </Space>
  );
}
