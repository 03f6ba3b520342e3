import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { IconSearch } from '@douyinfe/semi-icons';
import { Button, Input, Space } from '@console/kit';
import { Select } from '@console/kit/data';
import type { UserSearch } from './api';

interface UsersFiltersProps {
  groups: string[];
  onSearch(search: UserSearch): void;
  onAdd(): void;
}

export function UsersFilters({ groups, onSearch, onAdd }: UsersFiltersProps) {
  const { t } = useTranslation('admin');
  const [keyword, setKeyword] = useState('');
  const [group, setGroup] = useState('');
  return (
    <Space wrap style={{ marginBottom: 16, width: '100%', justifyContent: 'space-between' }}>
      <Button theme="solid" onClick={onAdd} data-testid="add-user">
        {t('users.add')}
      </Button>
      <Space wrap>
        <Input
          prefix={<IconSearch />}
          value={keyword}
          onChange={setKeyword}
          onEnterPress={() => onSearch({ keyword, group })}
          placeholder={t('users.keyword')}
          showClear
          style={{ width: 260 }}
          data-testid="user-keyword"
        />
        <Select
          value={group || undefined}
          onChange={(value) => setGroup(typeof value === 'string' ? value : '')}
          placeholder={t('users.group')}
          optionList={groups.map((name) => ({ label: name, value: name }))}
          showClear
          style={{ width: 160 }}
        />
        <Button onClick={() => onSearch({ keyword, group })}>{t('users.search')}</Button>
      </Space>
    </Space>
  );
}
