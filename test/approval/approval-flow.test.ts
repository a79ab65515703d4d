/**
 * The approval flow in process (memory store, the simulator's organization, a recording
 * messenger): the same promises as the end-to-end tests, in milliseconds.
 */
import { describe, expect, it } from 'vitest';
import { defaultRequirement } from '../../src/core/policy/evaluate.js';
import { DEMO_IDS } from '../../src/simulator/seed.js';
import { allTexts } from '../core/render/block-kit.js';
import { ALICE, BOB, CAROL, CHANNEL, inProcess } from '../support/in-process.js';
import { stringContaining } from '../support/matchers.js';

const nameOf = (h: ReturnType<typeof inProcess>, id: string) => h.directory.state.get(id)?.name;

describe('ApprovalFlow, in process', () => {
  it("posts a request in the channel and applies it once on a colleague's approval", async () => {
    const h = inProcess();
    const id = await h.requestChange('rename orders-prod orders-main');
    const [posted] = h.messenger.of('post', CHANNEL);
    expect(posted?.message.text).toContain(`Change request ${id} for orders-prod`);
    expect(await h.flow.decide('approve', id, BOB)).toBeUndefined();
    expect(h.directory.updates).toStrictEqual([{ serviceId: DEMO_IDS.ordersProd, update: { name: 'orders-main' } }]);
    expect(nameOf(h, DEMO_IDS.ordersProd)).toBe('orders-main');
    expect(allTexts(h.messenger.latest(posted?.ts ?? '')?.blocks ?? [])).toMatch(/Applied\.\* Approved by <@U0BOB>/);
    expect((await h.changeStore.get(id))?.status).toBe('applied');
  });

  it("refuses the requester's own approval, and changes nothing", async () => {
    const h = inProcess();
    const id = await h.requestChange('rename orders-prod orders-main');
    expect((await h.flow.decide('approve', id, ALICE))?.text).toContain('someone else has to approve it');
    expect(h.directory.updates).toHaveLength(0);
    expect((await h.changeStore.get(id))?.status).toBe('pending');
  });

  it('applies the change once when five colleagues approve at the same moment', async () => {
    const h = inProcess();
    const id = await h.requestChange('ip add orders-prod 10.0.0.0/24 vpn');
    const replies = await Promise.all(['U1', 'U2', 'U3', 'U4', 'U5'].map((user) => h.flow.decide('approve', id, user)));
    expect(h.directory.updates).toHaveLength(1);
    expect(replies.filter((reply) => reply === undefined)).toHaveLength(1);
    for (const reply of replies.filter((r) => r !== undefined)) expect(reply?.text).toMatch(/changed nothing/);
    expect(
      (await h.changeStore.readAudit({ limit: 20 })).filter((e) => e.changeId === id && e.action === 'approved'),
    ).toHaveLength(1);
  });

  it('lets only the requester cancel and only a colleague reject', async () => {
    const h = inProcess();
    const first = await h.requestChange('rename orders-prod orders-main');
    expect((await h.flow.decide('cancel', first, BOB))?.text).toContain(
      'Only the person who asked for this change can cancel it',
    );
    expect((await h.flow.decide('reject', first, ALICE))?.text).toContain('use Cancel to withdraw it');
    expect(await h.flow.decide('cancel', first, ALICE)).toBeUndefined();
    const second = await h.requestChange('rename orders-prod orders-main');
    expect(await h.flow.decide('reject', second, BOB)).toBeUndefined();
    expect([(await h.changeStore.get(first))?.status, (await h.changeStore.get(second))?.status]).toStrictEqual([
      'cancelled',
      'rejected',
    ]);
    expect(h.directory.updates).toHaveLength(0);
  });

  it('tells of each move with the request as it is after it: who decided it too (their Home is redrawn)', async () => {
    // A rule open to anyone names nobody: the one who rejected is known only as its decider.
    const moved: Array<{ status: string; decidedBy: string | undefined }> = [];
    const h = inProcess({
      moved: (request) => moved.push({ status: request.status, decidedBy: request.decidedBy }),
    });
    const id = await h.requestChange('rename orders-prod orders-main');
    expect(await h.flow.decide('reject', id, BOB)).toBeUndefined();
    expect(moved.at(-1)).toStrictEqual({ status: 'rejected', decidedBy: BOB });
  });

  it('refuses a change whose service moved since the request, naming the field', async () => {
    const h = inProcess();
    const id = await h.requestChange('rename orders-prod orders-main');
    const service = h.directory.state.get(DEMO_IDS.ordersProd);
    if (!service) throw new Error('no orders-prod');
    h.directory.state.put({ ...service, name: 'renamed-in-console' });
    await h.flow.decide('approve', id, BOB);
    expect(h.directory.updates).toHaveLength(0);
    expect(await h.changeStore.get(id)).toMatchObject({
      status: 'failed',
      outcome: { message: stringContaining('The service changed since this request was made (Name)') },
    });
  });

  it('tells the requester to invite the bot when it cannot post, and leaves nothing approvable', async () => {
    const h = inProcess();
    h.messenger.outside.add(CHANNEL);
    const [answer] = await h.command('rename orders-prod orders-main');
    expect(answer?.text).toContain('Invite it with `/invite @ClickHouse`');
    expect(await h.changeStore.listPending(CHANNEL, h.clock.now())).toStrictEqual([]);
  });

  it('refuses an approval that comes after the request expired', async () => {
    const h = inProcess();
    const id = await h.requestChange('rename orders-prod orders-main');
    h.clock.offsetMs += 3_600_000;
    expect((await h.flow.decide('approve', id, BOB))?.text).toContain('has expired, so nothing was changed');
    expect(h.directory.updates).toHaveLength(0);
  });

  it('asks Slack who is in an approver group, and refuses someone outside it', async () => {
    const h = inProcess({ approvers: ['S0OPS'] });
    h.messenger.groups.set('S0OPS', [BOB]);
    const id = await h.requestChange('rename orders-prod orders-main');
    expect((await h.flow.decide('approve', id, CAROL))?.text).toContain("You are not on this bot's list of approvers");
    expect(await h.flow.decide('approve', id, BOB)).toBeUndefined();
    expect(h.directory.updates).toHaveLength(1);
  });

  it('asks the approval policy with the request itself, so a policy can rule per service', async () => {
    const seen: string[] = [];
    const h = inProcess({
      policy: {
        rulesFor: () => ({
          decision: {
            kind: 'approve',
            requirements: [defaultRequirement({ approvers: [], allowSelfApproval: false })],
          },
        }),
        check(decision, userId, request) {
          seen.push(`${decision} ${userId} ${request.plan.serviceName}`);
          return Promise.resolve(
            request.plan.serviceName.endsWith('-prod') && decision === 'approve'
              ? { allowed: false, reason: 'Production needs the on-call lead.' }
              : { allowed: true },
          );
        },
        mayAct: () => Promise.resolve({ allowed: true }),
        maySee: () => Promise.resolve({ allowed: true }),
        breakGlassTerms: () => Promise.resolve({ list: [], maxMs: 0, listed: false }),
        reviewRequirement: (requirements) =>
          requirements[0] ?? defaultRequirement({ approvers: [], allowSelfApproval: false }),
      },
    });
    const id = await h.requestChange('rename orders-prod orders-main');
    expect((await h.flow.decide('approve', id, BOB))?.text).toBe(
      ':no_entry_sign: Production needs the on-call lead. Nothing was changed.',
    );
    expect(seen).toStrictEqual([`approve ${BOB} orders-prod`]);
    expect(h.directory.updates).toHaveLength(0);
  });
});
