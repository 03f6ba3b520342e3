import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

const METHODS = ['get', 'post', 'put', 'delete', 'patch'] as const;

/** Every (method, path) Express routes under /api, in OpenAPI's `{param}` form, the docs' own routes aside. */
function expressApiRoutes(gw: TestGateway): Set<string> {
  const express = gw.gateway.app.getHttpAdapter().getInstance() as {
    router: { stack: { route?: { path: unknown; methods: Record<string, boolean> } }[] };
  };
  const routes = new Set<string>();
  for (const layer of express.router.stack) {
    const route = layer.route;
    if (!route || typeof route.path !== 'string' || !route.path.startsWith('/api/') || route.path.startsWith('/api/docs')) continue;
    const path = route.path.replace(/\/$/, '').replace(/:(\w+)/g, '{$1}');
    for (const method of Object.keys(route.methods)) if (method !== '_all') routes.add(`${method.toUpperCase()} ${path}`);
  }
  return routes;
}

describe('OpenAPI document of the management API', () => {
  let gw: TestGateway;
  let doc: any;

  beforeAll(async () => {
    gw = await startTestGateway('sqlite', { API_DOCS_ENABLED: 'true' });
    const res = await fetch(`${gw.url}/api/docs/openapi.json`);
    expect(res.status).toBe(200);
    doc = await res.json();
  });
  afterAll(() => gw?.close());

  it('is a valid OpenAPI 3 document', async () => {
    expect(doc.openapi).toMatch(/^3\./);
    const result = await new Validator().validate(doc);
    expect(result.errors, JSON.stringify(result.errors)?.slice(0, 2000)).toBeUndefined();
    expect(result.valid).toBe(true);
  });

  it('lists every /api route the server answers, and nothing outside /api', () => {
    const documented = new Set<string>();
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
      expect(path.startsWith('/api/')).toBe(true);
      for (const method of METHODS) if (item[method]) documented.add(`${method.toUpperCase()} ${path}`);
    }
    const served = expressApiRoutes(gw);
    expect(served.size).toBeGreaterThan(50);
    expect([...served].filter((route) => !documented.has(route))).toEqual([]);
    expect(documented.has('GET /api/status')).toBe(true);
    expect(documented.has('GET /api/uptime/status')).toBe(true);
  });

  it('describes request bodies from the zod contracts', () => {
    const login = doc.paths['/api/user/login']?.post;
    const schema = login?.requestBody?.content?.['application/json']?.schema;
    const resolved = schema?.$ref ? doc.components.schemas[schema.$ref.split('/').pop()] : schema;
    expect(resolved?.properties).toHaveProperty('username');
    expect(resolved?.properties).toHaveProperty('password');
  });

  it('points to the provider formats for the relay and serves a viewer', async () => {
    expect(doc.info.description).toMatch(/platform\.openai\.com/);
    expect(doc.info.description).toMatch(/anthropic/i);
    expect(doc.info.description).toMatch(/Gemini/);
    const page = await fetch(`${gw.url}/api/docs`);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/swagger-ui/i);
  });
});

describe('OpenAPI switched off', () => {
  it('serves no document by default', async () => {
    const gw = await startTestGateway('sqlite');
    try {
      expect((await fetch(`${gw.url}/api/docs/openapi.json`)).status).not.toBe(200);
      const res = await fetch(`${gw.url}/api/docs`);
      expect(await res.text()).not.toMatch(/swagger-ui/i);
    } finally {
      await gw.close();
    }
  });
});
