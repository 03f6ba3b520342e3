import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { IconSearch } from '@douyinfe/semi-icons';
import { Button, Input, Space } from '@console/kit';
import { Popconfirm } from '@console/kit/data';
import type { TokenSearch } from './useTokensQuery';

interface TokensToolbarProps {
  selectedCount: number;
  onCreate(): void;
  onDeleteSelected(): void;
  onSearch(search: TokenSearch): void;
}

export function TokensToolbar({ selectedCount, onCreate, onDeleteSelected, onSearch }: TokensToolbarProps) {
  const { t } = useTranslation('user');
  const [keyword, setKeyword] = useState('');
  const [token, setToken] = useState('');
  const search = () => onSearch({ keyword, token });
  return (
    <Space wrap style={{ width: '100%', justifyContent: 'space-between', marginBottom: 16 }}>
      <Space wrap>
        <Button theme="solid" onClick={onCreate} data-testid="create-token">
          {t('tokens.create')}
        </Button>
        <Popconfirm title={t('tokens.deleteSelectedConfirm', { count: selectedCount })} onConfirm={onDeleteSelected}>
          <span style={{ display: 'inline-block' }}>
            <Button type="danger">{t('tokens.deleteSelected')}</Button>
          </span>
        </Popconfirm>
      </Space>
      <Space wrap>
        <Input
          prefix={<IconSearch />}
          value={keyword}
          onChange={setKeyword}
          onEnterPress={search}
          placeholder={t('tokens.searchName')}
          showClear
          style={{ width: 200 }}
        />
        <Input
          value={token}
          onChange={setToken}
          onEnterPress={search}
          placeholder={t('tokens.searchKey')}
          showClear
          style={{ width: 200 }}
        />
        <Button onClick={search}>{t('tokens.search')}</Button>
      </Space>
    </Space>
  );
}
