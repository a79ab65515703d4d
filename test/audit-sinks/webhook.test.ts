import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signBody, verifySignature } from '../../src/audit-sinks/signature.js';
import { webhookSink } from '../../src/audit-sinks/webhook.js';
import type { AuditEvent } from '../../src/core/audit/export.js';
import { startAuditReceiver, type AuditReceiver } from '../support/audit-receiver.js';

const SECRET = 'webhook-secret-0123456789abcdef';
const event: AuditEvent = {
  id: '1767225600000-0',
  type: 'requested',
  at: '2026-01-01T00:00:00.000Z',
  organization: 'org',
  service: { id: 's', name: 'prod' },
  requestId: 'r1',
  actor: 'U1',
  channel: 'C1',
  summary: 'name: a -> b — “quoted” ✓',
  details: {},
};

let receiver: AuditReceiver;
beforeAll(async () => {
  receiver = await startAuditReceiver(SECRET);
});
afterAll(() => receiver.close());

/** The receiver's side exactly as docs/audit-export.md prints it (Node). */
function verifyAsDocumented(rawBody: Buffer, header: string | undefined, secret: string): boolean {
  const expected = Buffer.from('sha256=' + createHmac('sha256', secret).update(rawBody).digest('hex'));
  const given = Buffer.from(header ?? '');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

describe('the webhook sink', () => {
  it('POSTs the event as JSON, signed so the receiver verifies the raw body with the documented method', async () => {
    let seen:
      { body: Buffer; signature: string | undefined; id: string | undefined; type: string | undefined } | undefined;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        seen = {
          body: Buffer.concat(chunks),
          signature: req.headers['x-signature-256'] as string | undefined,
          id: req.headers['x-audit-event-id'] as string | undefined,
          type: req.headers['content-type'],
        };
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    try {
      await webhookSink({ url, label: 'webhook:local', secret: SECRET }).deliver(event);
    } finally {
      server.close();
    }
    if (!seen) throw new Error('nothing received');
    expect(JSON.parse(seen.body.toString('utf8'))).toEqual(event);
    expect(seen.type).toBe('application/json');
    expect(seen.id).toBe(event.id);
    expect(verifyAsDocumented(seen.body, seen.signature, SECRET)).toBe(true);
    expect(verifySignature(seen.body, seen.signature, SECRET)).toBe(true);
    // A changed byte, another secret or a missing header do not verify.
    expect(
      verifyAsDocumented(Buffer.from(seen.body.toString('utf8').replace('prod', 'prud')), seen.signature, SECRET),
    ).toBe(false);
    expect(verifyAsDocumented(seen.body, seen.signature, `${SECRET}x`)).toBe(false);
    expect(verifyAsDocumented(seen.body, undefined, SECRET)).toBe(false);
  });

  it('signs as GitHub does: sha256= and the hex HMAC-SHA256 of the body', () => {
    expect(signBody('{}', 'k')).toBe(`sha256=${createHmac('sha256', 'k').update('{}').digest('hex')}`);
  });

  it('counts only a 2xx as delivered; the failure names the host, never the path', async () => {
    const sink = webhookSink({ url: receiver.url, label: 'webhook:127.0.0.1', secret: SECRET });
    receiver.down = true;
    await expect(sink.deliver(event)).rejects.toThrow('webhook:127.0.0.1 answered HTTP 503');
    receiver.down = false;
    await sink.deliver(event);
    expect(receiver.accepted).toEqual([event]);
    const wrongSecret = webhookSink({ url: receiver.url, label: 'webhook:127.0.0.1', secret: 'another-secret-of-16+' });
    await expect(wrongSecret.deliver(event)).rejects.toThrow('answered HTTP 401');
    const nobody = webhookSink({ url: 'http://127.0.0.1:1/hook/T0KEN', label: 'webhook:127.0.0.1:1', secret: SECRET });
    const failure = await nobody.deliver(event).then(
      () => undefined,
      (error: unknown) => String(error),
    );
    expect(failure).toMatch(/no answer from webhook:127.0.0.1:1/);
    expect(failure).not.toContain('T0KEN');
  });

  it('does not follow a redirect', async () => {
    const server = createServer((_req, res) => res.writeHead(307, { location: 'http://example.com/' }).end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    try {
      await expect(webhookSink({ url, label: 'webhook:local', secret: SECRET }).deliver(event)).rejects.toThrow(
        'answered HTTP 307',
      );
    } finally {
      server.close();
    }
  });
});
