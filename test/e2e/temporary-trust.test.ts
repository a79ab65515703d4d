/**
 * Temporary access that cannot be sidestepped (issue 22), end to end: the real bot over signed
 * HTTP, real Redis, the simulator. Each case is a way around a grant or a policy that a careless
 * or hostile colleague found; each failed before the fix.
 */
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { ACTION_APPROVE } from '../../src/core/render/change.js';
import { ACTION_EXTEND, ACTION_REVERT_NOW, ACTION_UNDO } from '../../src/core/render/temporary.js';
import { DEMO_IDS } from '../../src/simulator/seed.js';
import { REDIS_URL } from '../support/redis.js';
import { NEVER_OPEN_PROD, usePolicyFiles } from './policy-files.js';
import {
  answerText,
  requestChange,
  setEnvTag,
  textOf,
  useHarnesses,
  USERS,
  type Harness,
  movableClock,
} from './harness.js';

const GRANT = '192.0.2.44/32';
const harness = useHarnesses({ temporaryTickMs: 50 });
const policyFile = usePolicyFiles();

const entryOf = (h: Harness, source = GRANT) =>
  h.simulator.service(DEMO_IDS.ordersProd)?.ipAccessList?.find((e) => e.source === source);
const reads = (h: Harness) => h.simulator.requests.filter((r) => r.method === 'GET').length;

async function grantApproved(
  h: Harness,
  text = `ip add orders-prod ${GRANT} hotel for 1h`,
  approvers: string[] = [USERS.approver],
) {
  const { id } = await requestChange(h, text);
  for (const approver of approvers) await h.click(ACTION_APPROVE, id, approver);
  await expect.poll(async () => (await h.bot.changeStore.get(id))?.status, { timeout: 10_000 }).toBe('applied');
  return id;
}

/** The change request ids of this channel's pending requests that extend `id`. */
async function pendingExtensions(h: Harness, id: string) {
  return (await h.bot.changeStore.listPending('C0CHANNEL', Date.now())).filter((r) => r.extendOf === id);
}

describe('Revert now (issue 22, point 4)', () => {
  it('is allowed to the approver who approved the grant', async () => {
    const h = await harness({ env: { APPROVERS: USERS.approver } });
    const id = await grantApproved(h);
    const click = await h.click(ACTION_REVERT_NOW, id, USERS.approver);
    expect(await answerText(h, click)).toContain('Reverted');
    await expect.poll(() => entryOf(h)).toBeUndefined();
  });

  it('is allowed to an eligible approver of a grant no rule asked approval for', async () => {
    const path = policyFile('rules:\n  - name: open dev\n    match: { changes: [ip-access] }\n    approvals: 0\n');
    const h = await harness({ env: { POLICY_FILE: path, APPROVERS: USERS.approver } });
    const { id } = await requestChange(h, `ip add orders-prod ${GRANT} hotel for 1h`);
    await expect.poll(async () => (await h.bot.changeStore.get(id))?.status, { timeout: 10_000 }).toBe('applied');
    const click = await h.click(ACTION_REVERT_NOW, id, USERS.approver);
    expect(await answerText(h, click)).toContain('Reverted');
  });
});

describe('Extend (issue 22, points 2 and 6)', () => {
  it('is refused to someone who is neither the requester nor an approver, before any API call', async () => {
    const h = await harness({ env: { APPROVERS: USERS.approver } });
    const id = await grantApproved(h);
    const before = reads(h);
    const click = await h.click(ACTION_EXTEND, id, USERS.outsider);
    expect(await answerText(h, click)).toContain('Only the requester or an approver can extend');
    expect(reads(h)).toBe(before);
    expect(await pendingExtensions(h, id)).toHaveLength(0);
  });

  it('asked by an approver, is never approved by the person whose access it prolongs', async () => {
    const h = await harness({ env: { APPROVERS: `${USERS.approver},${USERS.requester},${USERS.second}` } });
    const id = await grantApproved(h);
    await answerText(h, await h.click(ACTION_EXTEND, id, USERS.approver));
    await expect.poll(() => pendingExtensions(h, id).then((found) => found.length)).toBe(1);
    const [extension] = await pendingExtensions(h, id);
    expect(extension?.beneficiaryId).toBe(USERS.requester);
    const own = await h.click(ACTION_APPROVE, extension?.id ?? '', USERS.requester);
    expect(await answerText(h, own)).toContain('Nothing was changed');
    expect((await h.bot.changeStore.get(extension?.id ?? ''))?.status).toBe('pending');
    await h.click(ACTION_APPROVE, extension?.id ?? '', USERS.second);
    await expect.poll(async () => (await h.bot.changeStore.get(extension?.id ?? ''))?.status).toBe('applied');
  });

  it('is judged by the rules of the grant it prolongs: a world-open grant needing two approvals needs two again', async () => {
    const path = policyFile(
      `rules:\n  - name: world-open needs two\n    match: { risks: [world-open] }\n    approvals: 2\n`,
    );
    const h = await harness({ env: { POLICY_FILE: path } });
    const id = await grantApproved(h, 'ip add orders-prod 0.0.0.0/0 everyone for 1h', [USERS.approver, USERS.second]);
    await answerText(h, await h.click(ACTION_EXTEND, id, USERS.requester));
    await expect.poll(() => pendingExtensions(h, id).then((found) => found.length)).toBe(1);
    const [extension] = await pendingExtensions(h, id);
    expect(extension?.requirements?.map((r) => [r.rule, r.approvals])).toEqual([['world-open needs two', 2]]);
    await h.click(ACTION_APPROVE, extension?.id ?? '', USERS.approver);
    expect((await h.bot.changeStore.get(extension?.id ?? ''))?.status).toBe('pending');
  });

  it('a flood of clicks files one extension, and later clicks point to it', async () => {
    const h = await harness();
    const id = await grantApproved(h);
    const clicks = await Promise.all(Array.from({ length: 12 }, () => h.click(ACTION_EXTEND, id, USERS.requester)));
    const answers = await Promise.all(clicks.map((c) => answerText(h, c)));
    expect(await pendingExtensions(h, id)).toHaveLength(1);
    expect(answers.filter((a) => a.includes('posted in the thread'))).toHaveLength(1);
    const later = await h.click(ACTION_EXTEND, id, USERS.requester);
    expect(await answerText(h, later)).toContain('already asked for');
  });
});

describe('Undo (issue 22, point 6)', () => {
  it('a flood of clicks files one undo, threaded under what it undoes', async () => {
    const h = await harness();
    const id = await grantApproved(h, 'rename orders-prod orders-main');
    const clicks = await Promise.all(Array.from({ length: 12 }, () => h.click(ACTION_UNDO, id, USERS.requester)));
    await Promise.all(clicks.map((c) => answerText(h, c)));
    const undos = (await h.bot.changeStore.listPending('C0CHANNEL', Date.now())).filter((r) => r.undoOf === id);
    expect(undos).toHaveLength(1);
    expect(undos[0]?.threadTs).toBe((await h.bot.changeStore.get(id))?.messageTs);
    const posted = h.slack.callsOf('chat.postMessage', (a) => textOf(a.blocks).includes('Undoes the change'));
    expect(posted).toHaveLength(1);
    expect(textOf(posted[0]?.args.blocks)).toContain(id);
  });

  it('is refused, before any API call, to someone who may not act on the change', async () => {
    const h = await harness({ env: { APPROVERS: USERS.approver } });
    const id = await grantApproved(h, 'rename orders-prod orders-main');
    const before = reads(h);
    const click = await h.click(ACTION_UNDO, id, USERS.outsider);
    expect(await answerText(h, click)).toContain('Only the requester or an approver can undo');
    expect(reads(h)).toBe(before);
  });
});

describe('a revert and the record it needs (issue 22, point 1)', () => {
  it('a 30-day grant keeps its request in Redis at least until its revert is due', async () => {
    const h = await harness({ env: { TEMPORARY_MAX_SECONDS: String(90 * 86_400) } });
    const id = await grantApproved(h, `ip add orders-prod ${GRANT} hotel for 30d`);
    const redis = new Redis(REDIS_URL);
    try {
      const ttl = await redis.pttl(`${h.keyPrefix}{changes}:req:${id}`);
      expect(ttl).toBeGreaterThan(30 * 86_400_000);
    } finally {
      redis.disconnect();
    }
  });

  it('a revert whose record is gone is logged as an error and stays scheduled, never dropped', async () => {
    const clock = movableClock();
    const h = await harness({ clock: clock.now });
    const id = await grantApproved(h);
    const redis = new Redis(REDIS_URL);
    try {
      await redis.del(`${h.keyPrefix}{changes}:req:${id}`);
    } finally {
      redis.disconnect();
    }
    clock.advance(2 * 3600_000);
    await expect.poll(() => h.logs.join('\n'), { timeout: 10_000 }).toMatch(/ERROR.*no longer in the store/);
    expect((await h.bot.changeStore.scheduledReverts()).map((r) => r.id)).toContain(id);
    expect(entryOf(h)).toBeDefined();
  });
});

describe('a later approved change takes over what a grant opened (issue 22, point 5)', () => {
  it('an entry re-described as permanent by a later request is left alone by the revert, and the thread says so', async () => {
    const clock = movableClock();
    const h = await harness({ clock: clock.now });
    const id = await grantApproved(h, `ip add orders-prod ${GRANT} hotel for 1h`);
    const later = await grantApproved(h, `ip add orders-prod ${GRANT} office, permanent`);
    expect(entryOf(h)?.description).toBe('office, permanent');
    clock.advance(2 * 3600_000);
    await expect.poll(async () => (await h.bot.changeStore.get(`${id}-R`))?.status, { timeout: 10_000 }).toBe('failed');
    expect(entryOf(h)?.description).toBe('office, permanent');
    const revert = await h.bot.changeStore.get(`${id}-R`);
    expect(revert?.plan.warnings.join(' ')).toContain(`changed since by ${later}`);
  });
});

describe('a revert that fails (issue 22: due reverts are not starved)', () => {
  it('is tried again later, backing off, instead of on every tick; it stays scheduled', async () => {
    const clock = movableClock();
    const h = await harness({ clock: clock.now });
    const id = await grantApproved(h);
    // Every read fails for a while: the revert cannot read the service.
    h.simulator.faults.failNext(50, 500, { on: 'GET' });
    clock.advance(2 * 3600_000);
    await expect.poll(() => h.logs.join('\n'), { timeout: 15_000 }).toMatch(/its revert failed \(1 time\(s\)\)/);
    const due = (await h.bot.changeStore.scheduledReverts()).find((r) => r.id === id)?.dueAt ?? 0;
    expect(due).toBeGreaterThan(clock.now());
    await new Promise((resolve) => setTimeout(resolve, 300)); // many ticks of 50 ms
    expect(h.logs.filter((line) => line.includes('its revert failed')).length).toBe(1);
  });
});

describe('a revert the API refuses (review of issue 22)', () => {
  it('stays scheduled and is tried again until the grant is taken back', async () => {
    const clock = movableClock();
    const h = await harness({ clock: clock.now });
    const id = await grantApproved(h);
    h.simulator.faults.failNext(1, 503, { on: 'PATCH' });
    clock.advance(2 * 3600_000);
    await expect.poll(async () => (await h.bot.changeStore.get(`${id}-R`))?.status, { timeout: 15_000 }).toBe('failed');
    expect((await h.bot.changeStore.scheduledReverts()).map((r) => r.id)).toContain(id);
    expect(entryOf(h)).toBeDefined();
    clock.advance(3600_000); // past the back-off
    await expect.poll(() => entryOf(h), { timeout: 15_000 }).toBeUndefined();
    expect((await h.bot.changeStore.get(`${id}-R2`))?.status).toBe('applied');
    await expect.poll(async () => (await h.bot.changeStore.scheduledReverts()).map((r) => r.id)).not.toContain(id);
  });

  it('Revert now says so when the revert was not applied', async () => {
    const h = await harness();
    const id = await grantApproved(h);
    h.simulator.faults.failNext(1, 400, { on: 'PATCH' });
    const click = await h.click(ACTION_REVERT_NOW, id, USERS.requester);
    const answer = await answerText(h, click);
    expect(answer).toContain('was not applied');
    expect(answer).not.toContain('Reverted');
  });
});

describe('an Extend denied by the rules (review of issue 22)', () => {
  it('gives its claim back: a second click is not told an extension is being filed', async () => {
    const path = policyFile(NEVER_OPEN_PROD);
    const h = await harness({ env: { POLICY_FILE: path } });
    const { id } = await requestChange(h, 'ip add sandbox-dev 0.0.0.0/0 everyone for 1h');
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await expect.poll(async () => (await h.bot.changeStore.get(id))?.status, { timeout: 10_000 }).toBe('applied');
    setEnvTag(h, DEMO_IDS.sandboxDev, 'prod');
    expect(await answerText(h, await h.click(ACTION_EXTEND, id, USERS.requester))).toContain('Never open production');
    const second = await answerText(h, await h.click(ACTION_EXTEND, id, USERS.requester));
    expect(second).not.toContain('being filed right now');
    expect(second).toContain('Never open production');
  });
});

describe('an Extend whose read of the service fails', () => {
  it('says why in a sentence and gives its claim back: clicked again once the API answers, it is filed', async () => {
    const h = await harness();
    const id = await grantApproved(h);
    // Every attempt of the client's read fails (it retries a 503 a few times).
    h.simulator.faults.failNext(10, 503, { on: 'GET' });
    const first = await answerText(h, await h.click(ACTION_EXTEND, id, USERS.requester));
    expect(first).toContain('Reading the service to extend this change failed');
    expect(first).toContain('Nothing was filed; click again once it answers.');
    h.simulator.faults.reset();
    const second = await answerText(h, await h.click(ACTION_EXTEND, id, USERS.requester));
    expect(second).not.toContain('being filed right now');
    expect(second).toContain(':memo: Change request');
  });
});

describe('the reminder after the grant is over (issue 22, newcomer trial)', () => {
  it('loses Extend and Revert now once the grant is reverted', async () => {
    const clock = movableClock();
    const h = await harness({ clock: clock.now });
    const id = await grantApproved(h, `ip add orders-prod ${GRANT} hotel for 1m`);
    clock.advance(31_000);
    await expect.poll(async () => (await h.bot.changeStore.get(id))?.reminderTs, { timeout: 10_000 }).toBeDefined();
    const reminderTs = (await h.bot.changeStore.get(id))?.reminderTs;
    await answerText(h, await h.click(ACTION_REVERT_NOW, id, USERS.requester));
    const closed = await h.slack.waitFor('chat.update', (a) => a.ts === reminderTs);
    expect(JSON.stringify(closed.args.blocks)).not.toContain(ACTION_EXTEND);
    expect(JSON.stringify(closed.args.blocks)).not.toContain(ACTION_REVERT_NOW);
    expect(textOf(closed.args.blocks)).toContain(`${id}-R`);
  });
});
