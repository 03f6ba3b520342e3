import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dataSourceOptions, sslOptions } from './data-source-options.js';

const parts = { entities: [], migrations: [] };

describe("the DSN's TLS mode reaches the drivers", () => {
  it('maps each mode to Node TLS options', () => {
    expect(sslOptions(undefined)).toBeUndefined();
    expect(sslOptions({ verifyCertificate: false, verifyHostname: false })).toEqual({ rejectUnauthorized: false });
    expect(sslOptions({ verifyCertificate: true, verifyHostname: true })).toEqual({ rejectUnauthorized: true });
    const verifyCa = sslOptions({ verifyCertificate: true, verifyHostname: false });
    expect(verifyCa?.rejectUnauthorized).toBe(true);
    expect(verifyCa?.checkServerIdentity?.()).toBeUndefined();
    expect(verifyCa).toHaveProperty('checkServerIdentity');
    const ca = join(mkdtempSync(join(tmpdir(), 'gw-ca-')), 'root.crt');
    writeFileSync(ca, '-----BEGIN CERTIFICATE-----');
    expect(sslOptions({ verifyCertificate: true, verifyHostname: true, caFile: ca })?.ca).toBe('-----BEGIN CERTIFICATE-----');
  });

  it('gives mysql2 and pg the ssl option, and nothing without TLS', () => {
    const tls = { verifyCertificate: false, verifyHostname: false };
    const mysql = dataSourceOptions({ type: 'mysql', host: 'h', database: 'd', poolSize: 5, tls }, parts);
    const postgres = dataSourceOptions({ type: 'postgres', host: 'h', database: 'd', poolSize: 5, tls }, parts);
    expect((mysql as { ssl?: unknown }).ssl).toEqual({ rejectUnauthorized: false });
    expect((postgres as { ssl?: unknown }).ssl).toEqual({ rejectUnauthorized: false });
    expect(
      (dataSourceOptions({ type: 'postgres', host: 'h', database: 'd', poolSize: 5 }, parts) as { ssl?: unknown }).ssl,
    ).toBeUndefined();
  });
});
