/**
 * The playground's /ui/* routes answer only its own page: not another web page's text/plain
 * POST (a "simple" request a browser sends cross-origin without asking), not a DNS-rebinding
 * page whose requests name another host. No browser needed: the requests are what a browser sends.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { startPlayground, type Playground } from '../../src/playground/playground.js';

let playground: Playground;
let port: number;

beforeAll(async () => {
  playground = await startPlayground({ port: 0, logger: createLogger({ level: 'warn', sink: () => undefined }) });
  port = Number(new URL(playground.url).port);
});
afterAll(async () => playground.stop());

const COMMAND = JSON.stringify({ userId: 'U0ALICE', text: 'list' });

async function send(path: string, headers: Record<string, string>, body?: string) {
  const answer = await request(`http://127.0.0.1:${port}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers,
    ...(body === undefined ? {} : { body }),
  });
  return { status: answer.statusCode, text: await answer.body.text() };
}

/** Commands typed into the playground's channel (each is echoed there as the person's own line). */
const commandsSeen = () => playground.slack.messages.filter((m) => m.text.startsWith('/clickhouse')).length;

describe('the playground and other origins', () => {
  it("refuses another page's text/plain POST to /ui/command, and runs nothing", async () => {
    const before = commandsSeen();
    const evil = await send(
      '/ui/command',
      { host: `127.0.0.1:${port}`, origin: 'https://evil.example', 'content-type': 'text/plain' },
      COMMAND,
    );
    expect(evil.status).toBe(403);
    expect(JSON.parse(evil.text)).toEqual({
      error: 'The playground answers only its own page, not pages from https://evil.example.',
    });
    const plain = await send('/ui/command', { host: `127.0.0.1:${port}`, 'content-type': 'text/plain' }, COMMAND);
    expect(plain.status).toBe(403);
    expect(commandsSeen()).toBe(before);
  });

  it('refuses a DNS-rebinding request that names another host, even from its "own" origin', async () => {
    const rebound = await send('/ui/state', {
      host: `rebind.example:${port}`,
      origin: `http://rebind.example:${port}`,
    });
    expect(rebound.status).toBe(403);
    expect(rebound.text).toContain('The playground answers only requests for 127.0.0.1');
  });

  it('answers its own page, on 127.0.0.1 or localhost', async () => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) {
      const state = await send('/ui/state', { host });
      expect(state.status).toBe(200);
      const command = await send(
        '/ui/command',
        { host, origin: `http://${host}`, 'content-type': 'application/json' },
        COMMAND,
      );
      expect(command.status, command.text).toBe(200);
    }
  });
});
