/**
 * Memory under bursts of stalled connections, in a real process. What anyone can send to the
 * bot's port without the signing secret must not take its memory: 300 connections without
 * signature headers, each sending all but the last byte of a 4 MB body (the review saw 187 MB
 * grow to 1.36 GB and stay there), and 150 with made-up fresh signature headers and bodies that
 * never end, which the thread reads only within its shared body budget. RSS is measured in the
 * child before, during (every connection still open) and after (all closed).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { slackSignatureHeaders } from '../../src/playground/signing.js';
import { SOCKET_LIMITS } from '../../src/slack/ack-thread/receiver.js';
import { postHead, rawRequest, SECRET, type RawExchange } from '../support/ack-thread.js';

const CHILD = fileURLToPath(new URL('../support/ack-thread-child.ts', import.meta.url));
const MB = 1024 * 1024;
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

function nextMessage<T>(child: ChildProcess, key: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: unknown) => {
      if (typeof message !== 'object' || message === null || !(key in message)) return;
      child.off('message', onMessage);
      resolve((message as Record<string, T>)[key] as T);
    };
    child.on('message', onMessage);
    child.once('exit', (code) => reject(new Error(`the child exited (code ${code}) before sending ${key}`)));
  });
}

async function rssOf(child: ChildProcess): Promise<number> {
  const answer = nextMessage<number>(child, 'rss');
  child.send('rss');
  return answer;
}

/** Settles when `data` has left for the server, or the server has closed the connection. */
function sent(exchange: RawExchange, data: Buffer): Promise<void> {
  const written = new Promise<void>((resolve) => exchange.socket.write(data, () => resolve()));
  return Promise.race([written, exchange.closed]);
}

interface Figures {
  before: number;
  during: number;
  after: number;
  text: string;
}

/** Opens the connections, sends `data` on each, measures, closes them all, measures again. */
async function burst(child: ChildProcess, open: () => RawExchange[], data: Buffer): Promise<Figures> {
  const before = await rssOf(child);
  const exchanges = open();
  await Promise.all(exchanges.map((exchange) => sent(exchange, data)));
  const during = await rssOf(child);
  for (const exchange of exchanges) exchange.socket.destroy();
  await Promise.all(exchanges.map((exchange) => exchange.closed));
  const after = await rssOf(child);
  const mb = (bytes: number) => `${Math.round(bytes / MB)} MB`;
  const text = `RSS before ${mb(before)}, during ${mb(during)}, after ${mb(after)}`;
  console.log(`${exchanges.length} connections: ${text}`);
  return { before, during, after, text };
}

describe('memory under a burst of stalled connections', () => {
  it('stays near its level during 300 unsigned 4 MB requests and after them, and within the body budget for made-up signatures', async () => {
    const child = fork(CHILD, [], { execArgv: ['--import', 'tsx', '--expose-gc'], stdio: 'ignore' });
    children.push(child);
    const port = await nextMessage<number>(child, 'port');

    const unsigned = await burst(
      child,
      () => Array.from({ length: 300 }, () => rawRequest(port, postHead(4_000_000))),
      Buffer.alloc(4_000_000 - 1, 'a'),
    );
    // What remains is about one 64 KB socket read per connection, until the thread next collects.
    expect(unsigned.during - unsigned.before, unsigned.text).toBeLessThan(32 * MB);
    expect(unsigned.after - unsigned.before, unsigned.text).toBeLessThan(32 * MB);

    const forgedHead = postHead(0, slackSignatureHeaders('made up', SECRET)).replace(
      'content-length: 0',
      'transfer-encoding: chunked',
    );
    const forged = await burst(
      child,
      () => Array.from({ length: 150 }, () => rawRequest(port, forgedHead)),
      Buffer.concat([Buffer.from(`${(MB - 1).toString(16)}\r\n`), Buffer.alloc(MB - 1, 'a')]),
    );
    // Bodies being read share SOCKET_LIMITS.bodyBudget (16 MiB); the rest is buffers awaiting collection.
    expect(forged.during - forged.before, forged.text).toBeLessThan(SOCKET_LIMITS.bodyBudget + 32 * MB);
    expect(forged.after - forged.before, forged.text).toBeLessThan(SOCKET_LIMITS.bodyBudget + 32 * MB);

    child.send('stop');
    await new Promise((resolve) => child.once('exit', resolve));
  }, 60_000);
});
