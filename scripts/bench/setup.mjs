// Prepares a fresh gateway through its console API: root account, a priced model, a channel to the fake
// provider, and a user token with plenty of quota. Returns the relay key.
import { FLOOD_MODEL, MODEL, SLOW_MODEL } from './models.mjs';

export { MODEL };
const MODELS = [MODEL, SLOW_MODEL, FLOOD_MODEL];

class Console {
  constructor(url) {
    this.url = url;
    this.headers = { 'content-type': 'application/json' };
  }

  async call(method, path, body) {
    const res = await fetch(this.url + path, {
      method,
      headers: this.headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('session='));
    if (cookie) this.headers.cookie = cookie.split(';')[0];
    const json = await res.json().catch(() => ({}));
    if (json.success === false || res.status >= 400) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  }

  async login(username, password) {
    const res = await this.call('POST', '/api/user/login', { username, password });
    this.headers['New-Api-User'] = String(res.data.id);
    return res.data.id;
  }
}

/**
 * `normalUpstreamUrl` (the streams scenario) serves MODEL from a provider process of its own: a normal
 * request's latency then does not include queueing behind the stream chunks that the streams' provider
 * process is busy writing (a real provider's JSON answer does not wait on our other streams).
 */
export async function prepareGateway(url, upstreamUrl, normalUpstreamUrl) {
  const root = new Console(url);
  const password = 'bench-pass-123';
  await root.call('POST', '/api/setup', {
    username: 'root',
    password,
    confirmPassword: password,
    SelfUseModeEnabled: false,
    DemoSiteEnabled: false,
  });
  await root.login('root', password);
  await root.call('PUT', '/api/option/', { key: 'ModelRatio', value: JSON.stringify(Object.fromEntries(MODELS.map((m) => [m, 1]))) });
  await root.call('PUT', '/api/option/', { key: 'CompletionRatio', value: JSON.stringify(Object.fromEntries(MODELS.map((m) => [m, 2]))) });
  const channel = (name, models, base_url) =>
    root.call('POST', '/api/channel/', {
      mode: 'single',
      channel: { name, type: 1, key: 'sk-bench-upstream', models: models.join(','), group: 'default', base_url },
    });
  if (normalUpstreamUrl) {
    await channel('bench', [SLOW_MODEL, FLOOD_MODEL], upstreamUrl);
    await channel('bench-normal', [MODEL], normalUpstreamUrl);
  } else {
    await channel('bench', MODELS, upstreamUrl);
  }
  await root.call('POST', '/api/user/', { username: 'bench', password });
  const found = await root.call('GET', '/api/user/search?keyword=bench');
  const userId = found.data.items.find((u) => u.username === 'bench').id;
  await root.call('PUT', '/api/user/', { id: userId, quota: 1_000_000_000_000 });

  const user = new Console(url);
  await user.login('bench', password);
  await user.call('POST', '/api/token/', { name: 'bench', remain_quota: 1_000_000_000_000, expired_time: -1 });
  const tokens = await user.call('GET', '/api/token/search?keyword=bench');
  const tokenId = tokens.data.items.find((t) => t.name === 'bench').id;
  const key = (await user.call('POST', `/api/token/${tokenId}/key`)).data.key;
  return { key, usage: async () => (await user.call('GET', '/api/user/self')).data };
}

/** The relay key of the bench user that prepareGateway made (a database kept from an earlier run). */
export async function benchKey(url) {
  const user = new Console(url);
  await user.login('bench', 'bench-pass-123');
  const tokens = await user.call('GET', '/api/token/search?keyword=bench');
  const tokenId = tokens.data.items.find((t) => t.name === 'bench').id;
  return (await user.call('POST', `/api/token/${tokenId}/key`)).data.key;
}
