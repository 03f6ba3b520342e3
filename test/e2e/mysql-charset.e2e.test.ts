import mysql from 'mysql2/promise';
import { afterAll, describe, expect, it } from 'vitest';
import type { TestDatabase } from '../support/databases.js';
import { setupRoot, startTestGateway, type TestGateway } from '../support/test-gateway.js';

/** An operator's database created with a latin1 default must still store Chinese and emoji (utf8mb4 columns). */
describe.runIf(Boolean(process.env.TEST_MYSQL_URL))('MySQL database with a latin1 default charset', () => {
  const server = new URL(process.env.TEST_MYSQL_URL ?? 'mysql://localhost/test');
  const name = `gw_latin1_${Date.now().toString(36)}`;
  const connect = () =>
    mysql.createConnection({
      host: server.hostname,
      port: Number(server.port || 3306),
      user: decodeURIComponent(server.username),
      password: decodeURIComponent(server.password),
    });
  let gw: TestGateway | undefined;

  afterAll(async () => {
    await gw?.close();
  });

  it('round-trips utf8mb4 text byte for byte', async () => {
    const admin = await connect();
    await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET latin1`);
    await admin.end();
    const dsn = new URL(server.toString());
    dsn.pathname = `/${name}`;
    const db: TestDatabase = {
      kind: 'mysql',
      env: { SQL_DSN: dsn.toString() },
      drop: async () => {
        const conn = await connect();
        await conn.query(`DROP DATABASE IF EXISTS \`${name}\``);
        await conn.end();
      },
    };
    gw = await startTestGateway('mysql', {}, db);
    const root = await setupRoot(gw);
    const text = '公告：欢迎 🚀✨ — naïve';
    expect((await root.put('/api/option/', { key: 'Notice', value: text })).body.success).toBe(true);
    expect((await gw.client().get('/api/notice')).body.data).toBe(text);
    await gw.close();
    gw = undefined;
    await db.drop();
  });
});
