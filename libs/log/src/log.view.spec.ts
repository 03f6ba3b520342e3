import { describe, expect, it } from 'vitest';
import type { LogEntity } from './log.entity.js';
import { toAdminView, toSelfView } from './log.view.js';

const row = (other: string | null): LogEntity =>
  ({
    id: 42,
    userId: 3,
    createdAt: 1_700_000_000,
    type: 2,
    content: null,
    username: 'u',
    tokenName: 't',
    modelName: 'm',
    quota: 5,
    promptTokens: 1,
    completionTokens: 2,
    useTime: 1,
    isStream: false,
    channelId: 9,
    tokenId: 4,
    group: 'default',
    ip: '',
    requestId: 'r',
    other,
  }) as LogEntity;

describe('log views', () => {
  it('admin view keeps the channel and resolves its name', () => {
    const view = toAdminView(row('{"admin_info":{"use_channel":["9"]}}'), (id) => `chan-${id}`);
    expect([view.id, view.channel, view.channel_name, view.content, view.other]).toEqual([
      42,
      9,
      'chan-9',
      '',
      '{"admin_info":{"use_channel":["9"]}}',
    ]);
  });

  it('self view hides channel id, name and every admin-only key of other, and numbers rows by position', () => {
    const other = {
      model_ratio: 2,
      admin_info: { use_channel: ['9'] },
      stream_status: {},
      channel_id: 9,
      channel_name: 'secret',
      channel_type: 1,
    };
    const view = toSelfView(row(JSON.stringify(other)), 7);
    expect([view.id, view.channel, view.channel_name]).toEqual([7, 0, '']);
    expect(JSON.parse(view.other)).toEqual({ model_ratio: 2 });
  });

  it('self view hides an other that is not a JSON object rather than pass it through', () => {
    expect(toSelfView(row('not json secret'), 1).other).toBe('');
    expect(toSelfView(row('["secret"]'), 1).other).toBe('');
    expect(toSelfView(row(null), 1).other).toBe('');
  });
});
