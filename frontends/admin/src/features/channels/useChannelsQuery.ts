import { useMemo } from 'react';
import { usePagedQuery } from '@console/kit';
import { channelsApi, type ChannelQuery } from './api';
import { groupByTag, type ChannelRow } from './channel-rows';

/** Server data for the channels table; in tag mode the page's channels are folded under their tags. */
export function useChannelsQuery(page: number, pageSize: number, query: ChannelQuery) {
  const paged = usePagedQuery(channelsApi.list, page, pageSize, query);
  const rows = useMemo<ChannelRow[]>(() => (query.tagMode ? groupByTag(paged.rows) : paged.rows), [paged.rows, query.tagMode]);
  return { ...paged, rows, channels: paged.rows };
}
