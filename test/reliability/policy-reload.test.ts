/**
 * POLICY_FILE in a real process (`node src/main.js` of the transpiled sources): a bad file stops it at start
 * with every problem listed; SIGHUP reloads the file; a bad new file keeps the rules in force,
 * says why in the log, and the bot keeps serving.
 */
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudSimulator } from '../../src/simulator/server.js';
import { DEMO_ORG_ID, demoServices } from '../../src/simulator/seed.js';
import { FakeSlack } from '../e2e/fake-slack.js';
import { KEY_ID, KEY_SECRET, slackSender, textOf } from '../e2e/harness.js';
import { usePolicyFiles } from '../e2e/policy-files.js';
import { startChildBot, startRedisServer, type ChildBot, type RedisServer } from './processes.js';

const policyFile = usePolicyFiles();
let redis: RedisServer;
let simulator: CloudSimulator;
let slack: FakeSlack;
const children: ChildBot[] = [];
beforeAll(async () => {
  redis = await startRedisServer();
  simulator = await CloudSimulator.start({
    keyId: KEY_ID,
    keySecret: KEY_SECRET,
    orgId: DEMO_ORG_ID,
    services: demoServices(),
  });
  slack = await FakeSlack.start();
});
afterAll(async () => {
  for (const child of children.splice(0)) await child.kill();
  await slack.close();
  await simulator.close();
  await redis.stop();
});

const rule = (name: string, approvals: number) =>
  `rules:\n  - name: ${name}\n    match: { tags: { env: prod } }\n    approvals: ${approvals}\n`;

describe('POLICY_FILE in a running process', () => {
  it('a bad file stops the bot at start, listing every problem with its line', async () => {
    const path = policyFile(
      'rules:\n  - name: a\n    match: { risks: [open-world] }\n    approvals: 1\n    deny: no\n',
    );
    const started = startChildBot({ simulator, slack, redisUrl: redis.url, env: { POLICY_FILE: path } });
    await expect(started).rejects.toThrow(
      /has 2 problems:\n {2}- line 3: rule 1 \("a"\): match\.risks\[0\] must be one of world-open, broad-ip, last-ip-removed, mysql-on, capacity-down, capacity-up-large, stop, single-replica(, [a-z-]+)*\n {2}- line 5: rule 1 \("a"\): deny and approvals cannot be in one rule/,
    );
  });

  it('SIGHUP reloads; a bad new file keeps the rules in force and the bot serving', async () => {
    const path = policyFile(rule('first rules', 2));
    const bot = await startChildBot({ simulator, slack, redisUrl: redis.url, env: { POLICY_FILE: path } });
    children.push(bot);
    const send = slackSender(bot.url, slack);
    const policyAnswer = async () => {
      const ack = await send.command('policy');
      return textOf((await slack.waitFor('response_url', (a) => a.responseUrlId === ack.responseUrlId)).args);
    };
    await bot.printed(/approval policy .*: 1 rule, sha256 [0-9a-f]{64}/);
    expect(await policyAnswer()).toContain('first rules');

    writeFileSync(path, rule('second rules', 1));
    bot.signal('SIGHUP');
    await bot.printed(/approval policy .* reloaded: 1 rule/);
    expect(await policyAnswer()).toContain('second rules');

    writeFileSync(path, 'rules:\n  - name: broken\n    match: {}\n    approvals: lots\n');
    bot.signal('SIGHUP');
    await bot.printed(
      /NOT reloaded, the rules in force stay \(1 rule, sha256 [0-9a-f]{64}\):\n {2}- line 4: rule 1 \("broken"\): approvals must be a whole number/,
    );
    expect(await policyAnswer()).toContain('second rules');
  });
});
