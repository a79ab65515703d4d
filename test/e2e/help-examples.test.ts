/**
 * Every example `help` shows works as written (issue 35, item 10): in demo mode (the simulator's
 * demo organization, no policy file) and in the playground's setup (its policy file, Alice asking).
 * In a channel that allows only some commands, help shows those.
 */
import { describe, expect, it } from 'vitest';
import { DEMO_POLICY_FILE } from '../../src/playground/playground.js';
import { REPLICAS_MAX, REPLICAS_MIN } from '../../src/core/service/schema.js';
import { answerText, CHANNEL, useHarnesses, USERS, type Harness } from './harness.js';

const harness = useHarnesses();

/** The commands help shows as examples (after "e.g." on each line), in its order, without the slash command. */
async function examplesOf(h: Harness, user: string, channel = CHANNEL): Promise<string[]> {
  const help = await answerText(h, await h.command('help', user, channel));
  return help
    .split('\n')
    .flatMap((line) => [...(line.split('_e.g._')[1] ?? '').matchAll(/`\/clickhouse ([^`]+)`/g)])
    .map((match) => match[1] ?? '');
}

/** What the bot answered a command: its answer's own text (its notification line), or that it opened a form. */
async function outcomeOf(h: Harness, text: string, user: string): Promise<string> {
  const after = h.slack.calls.length;
  const ack = await h.command(text, user);
  // Forms: edit, and reset-password … with-hash (its hashes are pasted in a form).
  if (text.startsWith('edit ') || text.endsWith(' with-hash')) {
    await h.slack.waitFor('views.open', () => true, { after });
    return 'opened a form';
  }
  const answer = await h.slack.waitFor('response_url', (a) => a.responseUrlId === ack.responseUrlId);
  return typeof answer.args.text === 'string' ? answer.args.text : '';
}

/** Words that mean a command did not do what its example promises. */
const FAILED = /:warning:|:no_entry|:x:|not a command|usage:|could not|cannot|can't|not allowed|no service|refus/i;

/** Runs each example once, then those help shows only afterwards (a schedule's id); returns the failures. */
async function failingExamples(h: Harness, user: string): Promise<Array<{ example: string; outcome: string }>> {
  const failed: Array<{ example: string; outcome: string }> = [];
  const run = new Set<string>();
  for (let round = 0; round < 2; round++) {
    for (const example of await examplesOf(h, user)) {
      if (run.has(example)) continue;
      run.add(example);
      const outcome = await outcomeOf(h, example, user);
      if (FAILED.test(outcome)) failed.push({ example, outcome });
    }
  }
  expect(run.size).toBeGreaterThan(30);
  return failed;
}

describe('help', () => {
  it('in demo mode, every example it shows works as written; it leaves out breakglass, which needs a list', async () => {
    const h = await harness();
    const before = await examplesOf(h, USERS.requester);
    expect(before.some((example) => example.startsWith('breakglass'))).toBe(false);
    expect(before.some((example) => example.startsWith('schedule remove'))).toBe(false);
    expect(await failingExamples(h, USERS.requester)).toStrictEqual([]);
    // `schedule remove` names a schedule of this channel once there is one.
    const after = await examplesOf(h, USERS.requester);
    expect(after.find((example) => example.startsWith('schedule remove'))).toMatch(/^schedule remove sch-[0-9a-f]+$/);
  });

  it("in the playground's setup, every example works for Alice, breakglass included", async () => {
    const alice = 'U0ALICE';
    const h = await harness({ env: { POLICY_FILE: DEMO_POLICY_FILE, APPROVERS: 'U0BOB,U0CAROL' } });
    expect((await examplesOf(h, alice)).some((example) => example.startsWith('breakglass'))).toBe(true);
    expect(await failingExamples(h, alice)).toStrictEqual([]);
  });

  it('in a channel that allows only some commands, shows only those and the examples allowed there', async () => {
    const h = await harness({
      organizations: [
        { name: 'analytics', channels: { [CHANNEL]: {}, C0DEV: { allow: ['list', 'show', 'ip-access'] } } },
      ],
    });
    const help = await answerText(h, await h.command('help', USERS.requester, 'C0DEV'));
    const usages = [...help.matchAll(/^`\/clickhouse ([a-z-]+(?: add| remove| list)?)/gm)].map((match) => match[1]);
    expect(usages).toStrictEqual(['help', 'list', 'show', 'ip add', 'ip remove']);
    expect(help).not.toContain('scale');
    // The whole help everywhere else.
    expect(await answerText(h, await h.command('help', USERS.requester, CHANNEL))).toContain('/clickhouse scale');
  });

  it('help WORD answers that command (or its group) only, with its examples; a typo gets the likely one', async () => {
    const h = await harness({
      organizations: [
        { name: 'analytics', channels: { [CHANNEL]: {}, C0DEV: { allow: ['list', 'show', 'ip-access'] } } },
      ],
    });
    const say = async (text: string, channel = CHANNEL) =>
      answerText(h, await h.command(text, USERS.requester, channel));
    const scale = await say('help scale');
    expect(scale).toContain('/clickhouse scale SERVICE replicas|memory VALUE');
    expect(scale).toContain('/clickhouse scale orders-prod replicas 6 for 4h');
    expect(scale).not.toContain('/clickhouse stop');
    // Its bounds, from the checks' constants and this deployment's TEMPORARY_MAX_SECONDS (7 days by default).
    expect(scale).toContain(`Replicas: ${REPLICAS_MIN} to ${REPLICAS_MAX}`);
    expect(scale).toContain('for DURATION: from 1m to 7d');
    const ip = await say('help ip');
    expect(ip).toContain('/clickhouse ip add SERVICE');
    expect(ip).toContain('/clickhouse ip remove SERVICE');
    expect(ip).not.toContain('/clickhouse scale');
    expect(await say('help ip remove')).not.toContain('/clickhouse ip add');
    expect(await say('help scael')).toContain('Did you mean `scale`?');
    const unknown = await say('help frobnicate');
    expect(unknown).toContain('`frobnicate` is not a command I know. Here is what I can do:');
    expect(unknown).toContain('/clickhouse scale');
    expect(await say('help scale', 'C0DEV')).toContain('`scale` is not available in this channel');
  });
});

describe('an empty /clickhouse', () => {
  it('answers a short overview of where to start, not the whole list, and points at help', async () => {
    const h = await harness();
    const overview = await answerText(h, await h.command(''));
    const whole = await answerText(h, await h.command('help'));
    expect(overview).toContain('/clickhouse list');
    expect(overview).toContain('/clickhouse show SERVICE');
    expect(overview).toContain('`/clickhouse help` lists every command');
    expect(overview).not.toContain('/clickhouse scale');
    expect(overview.length).toBeLessThan(whole.length / 3);
  });
});
