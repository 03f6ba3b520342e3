import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../support/api-client.js';
import { setupRoot, startTestGateway, type TestGateway } from '../support/test-gateway.js';

// POST /api/option/smtp_test: the settings page's "send test mail", through a real SMTP server on loopback.
describe('SMTP test mail', () => {
  let gw: TestGateway;
  let root: ApiClient;
  let smtp: SMTPServer;
  const received: { to: string[]; body: string }[] = [];

  beforeAll(async () => {
    smtp = new SMTPServer({
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      authOptional: true,
      logger: false,
      onData(stream, session, cb) {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          received.push({ to: session.envelope.rcptTo.map((rcpt) => rcpt.address), body: Buffer.concat(chunks).toString('utf8') });
          cb();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    gw = await startTestGateway('sqlite');
    root = await setupRoot(gw);
  });
  afterAll(async () => {
    await gw?.close();
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
  });

  it('refuses before SMTP is configured and for a bad address', async () => {
    expect((await root.post('/api/option/smtp_test', { email: 'ops@example.com' })).body).toMatchObject({
      success: false,
      message: expect.stringContaining('SMTP is not configured'),
    });
    const bad = await root.post('/api/option/smtp_test', { email: 'not-an-email' });
    expect(bad.status).toBe(200);
    expect(bad.body).toMatchObject({ success: false, message: 'invalid email address' });
  });

  it('sends one mail with the saved settings', async () => {
    for (const [key, value] of Object.entries({
      SMTPServer: '127.0.0.1',
      SMTPPort: String((smtp.server.address() as AddressInfo).port),
      SMTPFrom: 'noreply@example.com',
    })) {
      expect((await root.put('/api/option/', { key, value })).body.success, key).toBe(true);
    }
    const sent = await root.post('/api/option/smtp_test', { email: 'ops@example.com' });
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({ success: true, message: 'test mail sent' });
    expect(received).toHaveLength(1);
    expect(received[0]!.to).toEqual(['ops@example.com']);
    expect(received[0]!.body).toContain('SMTP test');
  });

  it('is for the super admin only', async () => {
    expect((await gw.client().post('/api/option/smtp_test', { email: 'ops@example.com' })).status).toBe(401);
  });
});
