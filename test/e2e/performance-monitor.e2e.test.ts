import { request } from 'node:http';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHAT, type RelayFixture, startRelayFixture } from './relay-fixture.js';

type ApiError = InstanceType<typeof OpenAI.APIError>;

/**
 * new-api's performance monitor (performance_setting.monitor_*, SystemPerformanceCheck) and its root page
 * (/api/performance). An overload is made certain by a memory threshold of 1 %: any machine running this test
 * uses more of its memory than that; the CPU and disk thresholds stay at 100, which no reading exceeds.
 */
describe('the performance monitor: relay calls refused (503) while the machine is over a threshold', () => {
  let f: RelayFixture;
  let openai: OpenAI;
  let anthropic: Anthropic;
  let key: string;

  beforeAll(async () => {
    f = await startRelayFixture('sqlite');
    await f.channel();
    key = (await f.token({ unlimited_quota: true })).key;
    openai = f.openai(key);
    anthropic = new Anthropic({ apiKey: key, baseURL: f.gw.url, maxRetries: 0 });
  });
  afterAll(async () => {
    await f?.close();
  });

  const ask = () => openai.chat.completions.create({ model: CHAT, messages: [{ role: 'user', content: 'hi' }] });
  const refusal = <T>(promise: Promise<T>) =>
    promise.then(
      () => undefined,
      (error: unknown) => error as ApiError,
    );
  const monitor = async (enabled: boolean, memory: number) => {
    await f.setOption('performance_setting.monitor_enabled', String(enabled));
    await f.setOption('performance_setting.monitor_cpu_threshold', '100');
    await f.setOption('performance_setting.monitor_memory_threshold', String(memory));
    await f.setOption('performance_setting.monitor_disk_threshold', '100');
  };

  it('is off by default: a call goes through whatever the load', async () => {
    const options = (await f.root.get('/api/option/')).body.data as { key: string; value: string }[];
    const value = (k: string) => options.find((o) => o.key === k)?.value;
    expect([
      value('performance_setting.monitor_enabled'),
      value('performance_setting.monitor_cpu_threshold'),
      value('performance_setting.monitor_memory_threshold'),
      value('performance_setting.monitor_disk_threshold'),
    ]).toEqual(['false', '90', '90', '95']);
    await monitor(false, 1);
    const { data, response } = await ask().withResponse();
    expect(data.choices[0]!.message.content).toBeTruthy();
    // Settled (its row written) before the next test reads the balance.
    await f.settled(response.headers.get('x-oneapi-request-id'));
  });

  it('refuses OpenAI and Anthropic clients in their own error shapes, calling no provider and charging nothing', async () => {
    await monitor(true, 1);
    const requests = f.up.requests.length;
    const before = await f.quota(f.user.id);
    const error = await refusal(ask());
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error!.status).toBe(503);
    expect(error!.code).toBe('system_memory_overloaded');
    expect(error!.message).toMatch(/the system's memory use \(\d+%\) is above its limit of 1%; try again later \(request id: \w+\)/);
    const claude = await anthropic.messages.create({ model: CHAT, max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] }).then(
      () => undefined,
      (e: unknown) => e as InstanceType<typeof Anthropic.APIError>,
    );
    expect(claude!.status).toBe(503);
    expect((claude!.error as { type: string; error: { type: string } }).type).toBe('error');
    // A bad key gets the same answer: the check comes before authentication, as new-api's.
    const stranger = await fetch(`${f.gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-nobody', 'content-type': 'application/json' },
      body: JSON.stringify({ model: CHAT, messages: [] }),
    });
    expect(stranger.status).toBe(503);
    expect(f.up.requests.length).toBe(requests);
    expect(await f.quota(f.user.id)).toBe(before);
  });

  it('leaves the model lists alone and refuses a Realtime upgrade before it happens', async () => {
    await monitor(true, 1);
    expect((await openai.models.list()).data.map((m) => m.id)).toContain(CHAT);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${f.gw.url}/v1/realtime?model=${CHAT}`, {
        headers: {
          authorization: `Bearer ${key}`,
          connection: 'Upgrade',
          upgrade: 'websocket',
          'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
          'sec-websocket-version': '13',
        },
      });
      req.on('response', (res) => resolve(res.statusCode!));
      req.on('upgrade', (_res, socket) => {
        socket.destroy();
        resolve(101);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(503);
  });

  it('lets calls through again once the thresholds allow the load', async () => {
    await monitor(true, 100);
    expect((await ask()).choices[0]!.message.content).toBeTruthy();
  });

  it('refuses a threshold outside 0-100', async () => {
    const res = await f.root.put('/api/option/', { key: 'performance_setting.monitor_cpu_threshold', value: '101' });
    expect(res.body.success).toBe(false);
  });

  it("shows root the machine's load, this process's memory and the monitor's settings, and collects garbage on demand", async () => {
    await monitor(true, 100);
    const stats = await f.root.get('/api/performance/stats');
    expect(stats.body.success, stats.text).toBe(true);
    const data = stats.body.data;
    for (const figure of ['cpu_usage', 'memory_usage', 'disk_usage']) {
      expect(data.system_status[figure]).toBeGreaterThanOrEqual(0);
      expect(data.system_status[figure]).toBeLessThanOrEqual(100);
    }
    expect(data.system_status.memory_usage).toBeGreaterThan(1);
    expect(data.memory_stats.alloc).toBeGreaterThan(0);
    expect(data.memory_stats.sys).toBeGreaterThan(data.memory_stats.alloc);
    expect(data.disk_space_info.total).toBeGreaterThan(data.disk_space_info.free);
    expect(data.config).toEqual({
      monitor_enabled: true,
      monitor_cpu_threshold: 100,
      monitor_memory_threshold: 100,
      monitor_disk_threshold: 100,
    });
    const gc = await f.root.post('/api/performance/gc', {});
    expect(gc.body.success, gc.text).toBe(true);
    expect(gc.body.data.before).toBeGreaterThan(0);
    expect(gc.body.data.after).toBeGreaterThan(0);
    // Root only, as in new-api.
    expect((await f.user.client.get('/api/performance/stats')).body.success).toBe(false);
    expect((await f.user.client.post('/api/performance/gc', {})).body.success).toBe(false);
  });
});
