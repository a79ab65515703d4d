/**
 * The Home tab's adapter (issue 25) on the memory store: who sees a request waiting (the approval
 * policy's eligibility: users, user groups, escalation, never the requester, not once approved),
 * their own requests and temporary changes, what one move refreshes, and failures only logged.
 */
import { describe, expect, it } from 'vitest';
import { ApproverPolicy } from '../../src/approval/approvers.js';
import { HomeTabs } from '../../src/approval/home.js';
import type { ChangeRequest } from '../../src/core/change/types.js';
import type { Requirement } from '../../src/core/policy/types.js';
import type { View } from '../../src/core/render/mrkdwn.js';
import { MemoryChangeStore } from '../../src/store/index.js';
import { pendingRequest } from '../core/approval/world.js';
import { allTexts, assertBlockKitLimits } from '../core/render/block-kit.js';
import { ALICE, BOB, CAROL, inProcess, recordingLog } from '../support/in-process.js';
import { RecordingMessenger } from '../support/recording-messenger.js';

const DAVE = 'U0DAVE';
const ONCALL = 'U0ONCALL';
const NOW = Date.now();

function rule(overrides: Partial<Requirement> = {}): Requirement {
  return {
    rule: 'production needs a DBA',
    approvals: 1,
    approvers: [BOB, 'S0DBAS'],
    reasons: ['env=prod'],
    ...overrides,
  };
}

function request(id: string, overrides: Partial<ChangeRequest> = {}): ChangeRequest {
  return {
    ...pendingRequest(),
    id,
    requesterId: ALICE,
    createdAt: NOW - 60_000,
    expiresAt: NOW + 3_600_000,
    requirements: [rule()],
    ...overrides,
  };
}

function world(now = () => NOW) {
  const store = new MemoryChangeStore();
  const messenger = new RecordingMessenger();
  messenger.groups.set('S0DBAS', [CAROL]);
  const logger = recordingLog();
  const policy = new ApproverPolicy({ approvers: [], allowSelfApproval: false, messenger, now });
  const homes = new HomeTabs({ store, messenger, policy, logger, now });
  return { store, messenger, logger, homes };
}

type Button = { action_id: string; value: string };
const waitingIds = (view: View) =>
  (JSON.parse(JSON.stringify(view.blocks)) as Array<{ type: string; elements?: Button[] }>)
    .flatMap((b) => (b.type === 'actions' ? (b.elements ?? []) : []))
    .filter((b) => b.action_id === 'change_approve')
    .map((b) => b.value);

describe('the Home tab adapter', () => {
  it('lists a request as waiting for its approvers, a group member included, and for nobody else', async () => {
    const { store, homes } = world();
    await store.create(request('CR-1'));
    expect(waitingIds(await homes.build(BOB))).toStrictEqual(['CR-1']);
    expect(waitingIds(await homes.build(CAROL))).toStrictEqual(['CR-1']);
    expect(waitingIds(await homes.build(DAVE))).toStrictEqual([]);
    // The requester sees it among their requests, never as waiting for them.
    const alice = await homes.build(ALICE);
    expect(waitingIds(alice)).toStrictEqual([]);
    expect(allTexts(alice.blocks)).toContain('Your requests (1 open)');
  });

  it('drops a request from the Home of someone who approved it, and shows escalated people once it escalates', async () => {
    let now = NOW;
    const { store, homes } = world(() => now);
    await store.create(
      request('CR-2', {
        requirements: [rule({ approvals: 2, escalate: { afterMs: 3_600_000, to: [ONCALL] } })],
        approvals: [{ userId: BOB, at: NOW - 1_000, counts: [0] }],
      }),
    );
    expect(waitingIds(await homes.build(BOB))).toStrictEqual([]);
    expect(waitingIds(await homes.build(CAROL))).toStrictEqual(['CR-2']);
    expect(waitingIds(await homes.build(ONCALL))).toStrictEqual([]);
    now = NOW + 3_600_000 - 30_000; // an hour after it was made, before it expires
    expect(waitingIds(await homes.build(ONCALL))).toStrictEqual(['CR-2']);
  });

  it('a move refreshes the Homes of the requester and of everyone who may approve it, once each, if they look at it', async () => {
    const { store, messenger, homes } = world();
    await store.create(request('CR-3'));
    // Alice and Carol opened their Home this month; Bob never did (his is drawn when he opens it).
    for (const person of [ALICE, CAROL]) await store.noteHomeOpened(person, NOW);
    homes.moved('CR-3');
    homes.moved('CR-3');
    await homes.idle();
    const published = messenger.homes.map((h) => h.userId).sort();
    expect(published).toStrictEqual([ALICE, CAROL].sort());
    expect(waitingIds(messenger.home(CAROL) ?? { type: 'home', blocks: [] })).toStrictEqual(['CR-3']);
  });

  it('opening the tab publishes that Home; a Slack failure is logged and refreshes go on', async () => {
    const { store, messenger, logger, homes } = world();
    await store.create(request('CR-4'));
    messenger.publishHome = (userId, view) =>
      userId === BOB
        ? Promise.reject(new Error('invalid_blocks'))
        : RecordingMessenger.prototype.publishHome.call(messenger, userId, view);
    await homes.opened(BOB);
    await homes.opened(CAROL);
    expect(logger.lines.some((l) => l.includes(`could not publish the Home tab of ${BOB}`))).toBe(true);
    expect(messenger.home(CAROL)).toBeDefined();
  });

  it('a store that fails is logged, never thrown at the caller', async () => {
    const { store, logger, homes } = world();
    store.listOpen = () => Promise.reject(new Error('redis down'));
    await expect(homes.opened(BOB)).resolves.toBeUndefined();
    expect(logger.lines.some((l) => l.includes('could not read the store'))).toBe(true);
  });

  it('shows the requester their finished requests and their temporary changes with Extend and Revert now', async () => {
    const h = inProcess({ approvers: [BOB] });
    const policy = new ApproverPolicy({ approvers: [BOB], allowSelfApproval: false, messenger: h.messenger });
    const homes = new HomeTabs({
      store: h.changeStore,
      messenger: h.messenger,
      policy,
      logger: h.logger,
      now: h.clock.now,
    });
    const renamed = await h.requestChange('rename orders-prod orders-main');
    const opened = await h.requestChange('ip add orders-prod 203.0.113.7/32 lab for 2h');
    expect(waitingIds(await homes.build(BOB)).sort()).toStrictEqual([renamed, opened].sort());
    await h.flow.decide('approve', renamed, BOB);
    await h.flow.decide('approve', opened, BOB);
    await h.flow.drain();
    const alice = await homes.build(ALICE);
    const text = allTexts(alice.blocks);
    expect(text).toContain('Your requests (0 open)');
    expect(text).toContain(`\`${renamed}\``);
    expect(text).toContain(':white_check_mark: applied');
    expect(text).toContain('Your temporary changes (1)');
    expect(JSON.stringify(alice.blocks)).toContain(
      `"action_id":"temporary_revert_now","text":{"type":"plain_text","text":"Revert now"},"style":"danger","value":"${opened}"`,
    );
    expect(waitingIds(await homes.build(BOB))).toStrictEqual([]);
    // Someone else's temporary changes are not theirs.
    expect(allTexts((await homes.build(CAROL)).blocks)).toContain('Your temporary changes (0)');
  });

  it('keeps the Home of a person with hundreds of requests within Block Kit, newest first, and counts the rest', async () => {
    const { store, homes } = world();
    for (let i = 0; i < 300; i += 1)
      await store.create(request(`CR-H${String(i).padStart(3, '0')}`, { createdAt: NOW - 300_000 + i * 1_000 }));
    const bob = await homes.build(BOB);
    assertBlockKitLimits(bob.blocks, { max: 100 });
    expect(waitingIds(bob)[0]).toBe('CR-H299');
    expect(allTexts(bob.blocks)).toContain('…and 280 more older requests waiting for you');
    const alice = await homes.build(ALICE);
    assertBlockKitLimits(alice.blocks, { max: 100 });
    expect(allTexts(alice.blocks)).toContain('Your requests (300 open)');
    expect(allTexts(alice.blocks)).toContain('…and 285 more open requests of yours');
  });
});
