/** The apply-time policy check on extensions and after a tag is removed (found in review). */
import { describe, expect, it } from 'vitest';
import { ACTION_APPROVE } from '../../src/core/render/change.js';
import { ACTION_EXTEND } from '../../src/core/render/temporary.js';
import { DEMO_IDS } from '../../src/simulator/seed.js';
import { NEVER_OPEN_PROD, usePolicyFiles } from './policy-files.js';
import { answerText, requestChange, setEnvTag, useHarnesses, USERS } from './harness.js';

const harness = useHarnesses();
const policyFile = usePolicyFiles();

describe('apply-time rules (review of issue 22, point 3)', () => {
  it('an extension of a world-open grant is refused when the service became env=prod (deny) before approval', async () => {
    const path = policyFile(NEVER_OPEN_PROD);
    const h = await harness({ env: { POLICY_FILE: path } });
    const { id } = await requestChange(h, 'ip add sandbox-dev 0.0.0.0/0 everyone for 1h');
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await expect.poll(async () => (await h.bot.changeStore.get(id))?.status, { timeout: 10_000 }).toBe('applied');
    await answerText(h, await h.click(ACTION_EXTEND, id, USERS.requester));
    const pending = async () =>
      (await h.bot.changeStore.listPending('C0CHANNEL', Date.now())).filter((r) => r.extendOf === id);
    await expect.poll(async () => (await pending()).length).toBe(1);
    const [extension] = await pending();
    setEnvTag(h, DEMO_IDS.sandboxDev, 'prod'); // now a new world-open grant on it would be denied
    await h.click(ACTION_APPROVE, extension?.id ?? '', USERS.approver);
    // Until it settles: "applying" passes by on the way to the outcome.
    await expect
      .poll(async () => (await h.bot.changeStore.get(extension?.id ?? ''))?.status, { timeout: 10_000 })
      .not.toMatch(/pending|applying/);
    // The session's promise: "a deny now matching ... refuse[s] the change".
    expect((await h.bot.changeStore.get(extension?.id ?? ''))?.status).toBe('failed');
  });

  it('a request approved by two under "prod needs two" is not refused because env=prod was removed meanwhile', async () => {
    const path = policyFile('rules:\n  - name: prod needs two\n    match: { tags: { env: prod } }\n    approvals: 2\n');
    const h = await harness({ env: { POLICY_FILE: path } });
    const { id } = await requestChange(h, 'rename orders-prod orders-main');
    setEnvTag(h, DEMO_IDS.ordersProd, undefined);
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await h.click(ACTION_APPROVE, id, USERS.second);
    await expect
      .poll(async () => (await h.bot.changeStore.get(id))?.status, { timeout: 10_000 })
      .not.toMatch(/pending|applying/);
    const stored = await h.bot.changeStore.get(id);
    // Fewer rules now match; README: refused only when the rules "ask for more approvals than the request was given".
    expect(stored?.status, stored?.outcome?.message).toBe('applied');
  });
  it('an extension of a world-open grant under "world-open needs two", approved by two, is applied', async () => {
    const path = policyFile(
      'rules:\n  - name: world-open needs two\n    match: { risks: [world-open] }\n    approvals: 2\n',
    );
    const h = await harness({ env: { POLICY_FILE: path } });
    const { id } = await requestChange(h, 'ip add orders-prod 0.0.0.0/0 everyone for 1h');
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await h.click(ACTION_APPROVE, id, USERS.second);
    await expect.poll(async () => (await h.bot.changeStore.get(id))?.status, { timeout: 10_000 }).toBe('applied');
    await answerText(h, await h.click(ACTION_EXTEND, id, USERS.requester));
    const pending = async () =>
      (await h.bot.changeStore.listPending('C0CHANNEL', Date.now())).filter((r) => r.extendOf === id);
    await expect.poll(async () => (await pending()).length).toBe(1);
    const [extension] = await pending();
    await h.click(ACTION_APPROVE, extension?.id ?? '', USERS.approver);
    await h.click(ACTION_APPROVE, extension?.id ?? '', USERS.second);
    await expect
      .poll(async () => (await h.bot.changeStore.get(extension?.id ?? ''))?.status, { timeout: 10_000 })
      .not.toMatch(/pending|applying/);
    const stored = await h.bot.changeStore.get(extension?.id ?? '');
    expect(stored?.status, stored?.outcome?.message).toBe('applied');
  });
});
