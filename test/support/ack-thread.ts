/**
 * An AckThreadReceiver with a real Bolt App on a real socket, for the tests of its doors, and a
 * raw socket client that can stop half-way through a request (as an attacker's would).
 */
import { connect, type Socket } from 'node:net';
import { App, LogLevel, type Logger } from '@slack/bolt';
import { AckThreadReceiver, type SocketLimits } from '../../src/slack/ack-thread/receiver.js';

export const SECRET = 'ack-thread-doors-secret';

export interface RunningThread {
  app: App;
  receiver: AckThreadReceiver;
  port: number;
  logs: string[];
}

export function recordingLogger(logs: string[]): Logger {
  const record = (...parts: unknown[]) => void logs.push(parts.map(String).join(' '));
  return {
    debug: record,
    info: record,
    warn: record,
    error: record,
    setLevel: () => undefined,
    getLevel: () => LogLevel.DEBUG,
    setName: () => undefined,
  };
}

export async function startThread(
  register: (app: App) => void = () => undefined,
  limits: Partial<SocketLimits> = {},
): Promise<RunningThread> {
  const logs: string[] = [];
  const logger = recordingLogger(logs);
  const receiver = new AckThreadReceiver({
    signingSecret: SECRET,
    port: 0,
    host: '127.0.0.1',
    logger,
    routes: [
      {
        path: '/livez',
        method: ['GET'],
        answer: () => Promise.resolve({ status: 200, contentType: 'application/json', body: '{"ok":true}' }),
      },
    ],
    limits,
  });
  const app = new App({
    receiver,
    logger,
    authorize: () => Promise.resolve({ botToken: 'xoxb-ack-thread', botId: 'B0', botUserId: 'U0BOT' }),
  });
  register(app);
  const port = await receiver.start();
  return { app, receiver, port, logs };
}

export interface RawExchange {
  socket: Socket;
  /** The status of the answer, or undefined when the connection closed without one. */
  status: Promise<number | undefined>;
  /** Settles when the server (or we) closed the connection. */
  closed: Promise<void>;
}

/** Opens a connection and writes `head` (and `body` if given), then leaves it open. */
export function rawRequest(port: number, head: string, body?: Buffer): RawExchange {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  let received = '';
  const status = new Promise<number | undefined>((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      const match = /^HTTP\/1\.1 (\d{3})/.exec(received);
      if (match) resolve(Number(match[1]));
    });
    socket.once('close', () => resolve(undefined));
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.write(head);
  if (body) socket.write(body);
  return { socket, status, closed };
}

/** The head of a POST to /slack/events with these extra header lines. */
export function postHead(contentLength: number, headers: Record<string, string> = {}): string {
  const lines = Object.entries({
    host: '127.0.0.1',
    'content-type': 'application/x-www-form-urlencoded',
    'content-length': String(contentLength),
    ...headers,
  }).map(([name, value]) => `${name}: ${value}`);
  return `POST /slack/events HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`;
}
