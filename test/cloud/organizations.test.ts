import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startBot } from '../../src/bot.js';
import { CloudClient } from '../../src/cloud/client.js';
import { Organizations, OrganizationsFileError, type OrganizationKey } from '../../src/cloud/organizations.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import type { SummaryPublisher } from '../../src/ports/index.js';

const A = '11111111-2222-4333-8444-555555555555';
const B = '22222222-2222-4333-8444-555555555555';
const SECRET_A = 'secret-a-must-never-be-logged';

const file = (orgs: Array<{ name: string; id: string; channels: string; key?: string }>) =>
  `organizations:\n${orgs
    .map(
      (o) =>
        `  - name: ${o.name}\n    id: ${o.id}\n    key_id_env: ${o.key ?? `KEY_ID_${o.name.toUpperCase()}`}\n    key_secret_env: KEY_SECRET_${o.name.toUpperCase()}\n    api_url: http://127.0.0.1:9\n    channels: ${o.channels}\n`,
    )
    .join('')}`;

const env = {
  KEY_ID_A: 'id-a',
  KEY_SECRET_A: SECRET_A,
  KEY_ID_B: 'id-b',
  KEY_SECRET_B: 'secret-b',
  OTHER_KEY_ID_A: 'id-a-2',
};

let dir = '';
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = '';
});

async function setUp(text: string) {
  dir = await mkdtemp(join(tmpdir(), 'orgs-unit-'));
  const path = join(dir, 'organizations.yaml');
  await writeFile(path, text);
  const lines: string[] = [];
  const logger = createLogger({ level: 'debug', sink: (line) => lines.push(line) });
  const connected: OrganizationKey[] = [];
  const noSummaries: SummaryPublisher = { post: () => Promise.resolve({ ok: true }) };
  const open = () =>
    Organizations.open({
      path,
      env,
      logger,
      fallback: () => {
        throw new Error('no fallback with a file');
      },
      connect: (key) => {
        connected.push(key);
        return new CloudClient({
          baseUrl: key.apiUrl ?? '',
          keyId: key.keyId,
          keySecret: key.keySecret,
          orgId: key.orgId,
        });
      },
      summaries: () => noSummaries,
    });
  return { path, lines, connected, open };
}

describe('Organizations', () => {
  it('gives each organization its own client, keeps it across reloads while its key is the same', async () => {
    const t = await setUp(
      file([
        { name: 'a', id: A, channels: '{ C0A: {} }' },
        { name: 'b', id: B, channels: '{ C0B: { allow: [list] } }' },
      ]),
    );
    const orgs = await t.open();
    try {
      const [a, b] = [orgs.clientOf('a'), orgs.clientOf('b')];
      expect(a).not.toBe(b);
      expect(orgs.binding('C0B')).toEqual({ organization: 'b', rules: { allow: ['list'] } });
      expect(orgs.binding('C0NONE')).toBeUndefined();
      expect(orgs.clientOf(undefined)).toBe(a);
      expect(orgs.several()).toBe(true);
      expect(t.connected.map((k) => [k.name, k.keyId, k.keySecret])).toEqual([
        ['a', 'id-a', SECRET_A],
        ['b', 'id-b', 'secret-b'],
      ]);

      // b leaves the file, a gets another key: a's new client; b's old one still serves its requests.
      await writeFile(t.path, file([{ name: 'a', id: A, channels: '{ C0A: {}, C0B: {} }', key: 'OTHER_KEY_ID_A' }]));
      expect(await orgs.reload()).toEqual({ ok: true, changed: true, organizations: ['a'] });
      expect(orgs.clientOf('a')).not.toBe(a);
      expect(orgs.clientOf('b')).toBe(b);
      expect(orgs.binding('C0B')).toEqual({ organization: 'a', rules: {} });
      expect(orgs.several()).toBe(false);

      const kept = orgs.clientOf('a');
      expect(await orgs.reload()).toEqual({ ok: true, changed: false, organizations: ['a'] });
      expect(orgs.clientOf('a')).toBe(kept);
    } finally {
      await orgs.close();
    }
  });

  it('keeps the organizations in force when the new file is bad, and logs every problem', async () => {
    const t = await setUp(file([{ name: 'a', id: A, channels: '{ C0A: {} }' }]));
    const orgs = await t.open();
    try {
      await writeFile(t.path, file([{ name: 'a', id: 'nope', channels: '{ c0a: {} }', key: 'UNSET_KEY' }]));
      const reload = await orgs.reload();
      expect(reload.ok ? [] : reload.problems).toHaveLength(3);
      const logged = t.lines.join('\n');
      expect(logged).toContain('NOT reloaded, the organizations in force stay (a (' + A);
      expect(logged).toContain('line 3: organization 1 ("a"): id must be the organization id');
      expect(logged).toContain('key_id_env names UNSET_KEY, which is not set in the environment');
      expect(logged).toContain('channels.c0a is not a Slack channel id');
      expect(orgs.binding('C0A')?.organization).toBe('a');
      expect(logged).not.toContain(SECRET_A);
    } finally {
      await orgs.close();
    }
  });

  it('refuses to start on a bad file, listing every problem with its line', async () => {
    const t = await setUp(file([{ name: 'a', id: A, channels: '{ C0A: { allow: [drop] } }', key: 'UNSET_KEY' }]));
    await expect(t.open()).rejects.toThrow(OrganizationsFileError);
    const config = loadConfig({
      SLACK_BOT_TOKEN: 'xoxb-1',
      SLACK_SIGNING_SECRET: 'secret',
      ORGANIZATIONS_FILE: t.path,
    });
    const logger = createLogger({ level: 'error', sink: () => undefined });
    const error = await startBot(config, { logger, environment: env }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OrganizationsFileError);
    expect(String(error)).toMatch(
      /ORGANIZATIONS_FILE .* has 2 problems:\n {2}- line 4: .*UNSET_KEY.*\n {2}- line 7: .*allow\[0\] must be one of/,
    );
  });
});
