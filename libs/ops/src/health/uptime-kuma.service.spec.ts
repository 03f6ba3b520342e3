import { beforeEach, describe, expect, it, vi } from 'vitest';

const fetchMock = vi.hoisted(() => vi.fn());
vi.mock('@gw/core', async (original) => ({ ...(await original<typeof import('@gw/core')>()), outboundFetch: fetchMock }));

const { UptimeKumaService } = await import('./uptime-kuma.service.js');

function answer(status: number, body: unknown) {
  return { status, headers: {}, text: JSON.stringify(body), json: () => body };
}

function service(groups: unknown[]) {
  return new UptimeKumaService({ get: () => groups } as never);
}

describe('UptimeKumaService', () => {
  beforeEach(() => {
    fetchMock.mockReset();
  });

  it('maps each status page to monitors with 24 h uptime and the latest heartbeat', async () => {
    fetchMock.mockImplementation(async (url: string) => {
      if (url === 'https://status.example.com/api/status-page/main') {
        return answer(200, {
          publicGroupList: [
            {
              name: 'APIs',
              monitorList: [
                { id: 1, name: 'OpenAI' },
                { id: 2, name: 'Claude' },
              ],
            },
            { name: 'Empty', monitorList: [] },
          ],
        });
      }
      if (url === 'https://status.example.com/api/status-page/heartbeat/main') {
        return answer(200, { heartbeatList: { 1: [{ status: 1 }, { status: 0 }] }, uptimeList: { '1_24': 0.998 } });
      }
      throw new Error(`unexpected ${url}`);
    });
    const result = await service([{ categoryName: 'Providers', url: 'https://status.example.com/', slug: 'main' }]).status();
    expect(result).toEqual([
      {
        categoryName: 'Providers',
        monitors: [
          { name: 'OpenAI', uptime: 0.998, status: 1, group: 'APIs' },
          { name: 'Claude', uptime: 0, status: 0, group: 'APIs' },
        ],
      },
    ]);
  });

  it('gives an empty group for an unreadable page, a non-200 answer or a missing slug', async () => {
    fetchMock.mockResolvedValueOnce(answer(500, {})).mockResolvedValueOnce(answer(200, {}));
    const result = await service([
      { categoryName: 'Down', url: 'https://a.example.com', slug: 's' },
      { categoryName: 'No slug', url: 'https://b.example.com', slug: '' },
    ]).status();
    expect(result).toEqual([
      { categoryName: 'Down', monitors: [] },
      { categoryName: 'No slug', monitors: [] },
    ]);
  });

  it('is an empty list without groups', async () => {
    expect(await service([]).status()).toEqual([]);
    expect(fetchMock).not.toHaveBeenCalled();
  });
});
