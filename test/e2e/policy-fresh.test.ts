/**
 * Policy decisions on the record as it is, not as the cache saw it (issue 22, point 3): a request
 * is filed on a record at most a few seconds old (the lookup's, else read again: issue 36 §6) and
 * the rules are judged again on a fresh read when it is applied, so a tag added seconds ago counts.
 */
import { describe, expect, it } from 'vitest';
import { ACTION_APPROVE } from '../../src/core/render/change.js';
import { DEMO_IDS } from '../../src/simulator/seed.js';
import { usePolicyFiles } from './policy-files.js';
import { answerText, requestChange, setEnvTag, useHarnesses, USERS, type Harness } from './harness.js';

const harness = useHarnesses();
const policyFile = usePolicyFiles();

const POLICY = `rules:
  - name: dev IPs are free
    match: { tags: { env: dev }, changes: [ip-access] }
    approvals: 0
  - name: dev needs one
    match: { tags: { env: dev } }
    approvals: 1
  - name: prod needs two
    match: { tags: { env: prod } }
    approvals: 2
`;

const patches = (h: Harness) => h.simulator.requests.filter((r) => r.method === 'PATCH');

describe('rules judged on a fresh record', () => {
  it('a service tagged env=prod a second ago, after the list it was looked up in, is never changed under the dev rules', async () => {
    const h = await harness({ env: { POLICY_FILE: policyFile(POLICY) } });
    await answerText(h, await h.command('list')); // the cached list, a moment old, still says env=dev
    setEnvTag(h, DEMO_IDS.sandboxDev, 'prod');
    // Filed on the lookup's record (no second read of the budget), so under the dev rules...
    const { id } = await requestChange(h, 'ip add sandbox-dev 192.0.2.9 laptop');
    await h.click(ACTION_APPROVE, id, USERS.approver);
    // ...and judged again on a fresh read at apply, where env=prod asks for two approvals.
    await expect.poll(async () => (await h.bot.changeStore.get(id))?.status, { timeout: 10_000 }).toBe('failed');
    expect((await h.bot.changeStore.get(id))?.outcome?.message).toContain('prod needs two');
    expect(patches(h)).toHaveLength(0);
  });

  it('tagged env=prod after the request was made: approving under the dev rule applies nothing and says why', async () => {
    const h = await harness({ env: { POLICY_FILE: policyFile(POLICY) } });
    const { id } = await requestChange(h, 'rename sandbox-dev sandbox-main');
    setEnvTag(h, DEMO_IDS.sandboxDev, 'prod');
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await expect.poll(async () => (await h.bot.changeStore.get(id))?.status, { timeout: 10_000 }).toBe('failed');
    expect((await h.bot.changeStore.get(id))?.outcome?.message).toContain('prod needs two');
    expect(patches(h)).toHaveLength(0);
  });

  it('a change no rule asks approval for tells its requester it was applied, not that it waits', async () => {
    const free =
      'rules:\n  - name: dev IPs are free\n    match: { tags: { env: dev }, changes: [ip-access] }\n    approvals: 0\n';
    const h = await harness({ env: { POLICY_FILE: policyFile(free) } });
    const answer = await answerText(h, await h.command('ip add sandbox-dev 192.0.2.9 laptop'));
    expect(answer).toContain('needed no approval under the policy rule(s) dev IPs are free and was applied');
    expect(answer).not.toContain('waits');
    expect(patches(h)).toHaveLength(1);
  });
});
