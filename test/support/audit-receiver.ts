/**
 * A local SIEM stand-in for the audit export: accepts signed webhook POSTs (verified with the
 * method docs/audit-export.md shows), can be "down" (answers 503), and lets a test await a
 * condition on what it received instead of sleeping.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifySignature } from '../../src/audit-sinks/signature.js';
import type { AuditEvent } from '../../src/core/audit/export.js';

export interface AuditReceiver {
  url: string;
  /** Events accepted (2xx), in arrival order. */
  accepted: AuditEvent[];
  /** Requests answered 503 while down. */
  refused: number;
  /** Requests whose signature did not verify (answered 401). */
  badSignatures: number;
  down: boolean;
  until(condition: () => boolean): Promise<void>;
  close(): Promise<void>;
}

export async function startAuditReceiver(secret: string): Promise<AuditReceiver> {
  const waiters: Array<{ condition: () => boolean; resolve: () => void }> = [];
  const check = () => {
    for (const waiter of [...waiters]) {
      if (!waiter.condition()) continue;
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  };
  const receiver: AuditReceiver = {
    url: '',
    accepted: [],
    refused: 0,
    badSignatures: 0,
    down: false,
    until(condition) {
      if (condition()) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ condition, resolve }));
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((req, res) => {
    void rawBody(req).then((body) => {
      if (receiver.down) {
        receiver.refused += 1;
        res.writeHead(503).end();
      } else if (!verifySignature(body, header(req, 'x-signature-256'), secret)) {
        receiver.badSignatures += 1;
        res.writeHead(401).end();
      } else {
        receiver.accepted.push(JSON.parse(body.toString('utf8')) as AuditEvent);
        res.writeHead(204).end();
      }
      check();
    });
  });
  server.keepAliveTimeout = 1;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook/secret-token-in-path`;
  return receiver;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

async function rawBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
