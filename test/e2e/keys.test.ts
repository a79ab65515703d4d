/**
 * `keys` (issue 40, first bullet): the organization's API keys from GET …/keys, with what deserves
 * a look flagged and the bot's own key marked; only the last four characters of any key.
 */
import { describe, expect, it } from 'vitest';
import { answerText, KEY_SECRET, useHarnesses } from './harness.js';

const harness = useHarnesses();

describe('keys', () => {
  it('lists every key with its state, roles, last use and expiry, and flags what deserves a look', async () => {
    const h = await harness();
    const text = await answerText(h, await h.command('keys'));
    expect(text).toContain('4 keys · 1 never expiring · 2 unused for 90 days · 2 admin');
    const line = (name: string) => text.split('\n• ').find((entry) => entry.includes(`*${name}*`)) ?? '';
    expect(line('chat-ops bot')).toContain('the bot’s own key');
    expect(line('chat-ops bot')).toContain(`\`…${KEY_SECRET.slice(-4)}\``);
    expect(line('terraform')).toContain('never expires');
    expect(line('terraform')).toMatch(/expires never/);
    expect(line('ci-readonly')).toContain('last used never');
    expect(line('ci-readonly')).toContain('unused for 90+ days');
    expect(line('ci-readonly')).toContain('Developer');
    expect(text).not.toContain(KEY_SECRET);
    expect(h.simulator.requests.filter((r) => r.path.endsWith('/keys')).map((r) => r.method)).toStrictEqual(['GET']);
  });

  it('takes no arguments', async () => {
    const h = await harness();
    expect(await answerText(h, await h.command('keys terraform'))).toContain('keys takes nothing');
  });
});
