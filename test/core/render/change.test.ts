import { changeSummary } from '../../../src/core/change/summary.js';
import { describe, expect, it } from 'vitest';
import type { ChangeRequest } from '../../../src/core/change/types.js';
import {
  ACTION_APPROVE,
  ACTION_ASK_AGAIN,
  ACTION_CANCEL,
  ACTION_REJECT,
  changeLine,
  changeRequestBlocks,
  outcomeText,
  pendingBlocks,
} from '../../../src/core/render/change.js';
import { mention } from '../../../src/core/render/people.js';
import { changeRequest, ipEntries, mustPlan, NOW, service } from '../fixtures.js';
import { allTexts, assertBlockKitLimits, assertSafeMrkdwn, mrkdwnTexts } from './block-kit.js';

const renamePlan = () => mustPlan(service(), { name: 'orders-main' });

describe('mention', () => {
  it('mentions a Slack user id', () => {
    expect(mention('U0123ABC')).toBe('<@U0123ABC>');
    expect(mention('W0123ABC')).toBe('<@W0123ABC>');
  });

  it('shows anything else as escaped text, never as a mention', () => {
    expect(mention('<!channel>')).toBe('&lt;!channel&gt;');
    expect(mention('U12>|x')).toBe('U12&gt;|x');
    expect(mention('u0123abc')).toBe('u0123abc');
  });

  it('says "someone" when nobody is known', () => {
    expect(mention(undefined)).toBe('someone');
    expect(mention('')).toBe('someone');
  });
});

describe('change lines', () => {
  it('shows a change as label: before → after, with values as code', () => {
    expect(changeLine({ field: 'name', label: 'Name', before: 'a', after: 'b' })).toBe('• *Name*: `a` → `b`');
  });

  it('summarises changes on one line for audit entries', () => {
    const plan = mustPlan(service(), { name: 'orders-main', ipAdd: [{ source: '192.0.2.1' }] });
    expect(changeSummary(plan.changes)).toBe('Name: orders-prod → orders-main; IP access: + 192.0.2.1');
  });
});

describe('changeRequestBlocks', () => {
  it('shows who asks, for which service, what changes, and the decision buttons', () => {
    const blocks = changeRequestBlocks(changeRequest(renamePlan()));
    assertBlockKitLimits(blocks, { max: 50 });
    expect(allTexts(blocks)).toContain('Change request: orders-prod');
    const text = mrkdwnTexts(blocks).join('\n');
    expect(text).toContain('<@U0REQUESTER> asks to change *orders-prod* `a1b2c3d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d`:');
    expect(text).toContain('• *Name*: `orders-prod` → `orders-main`');
    expect(text).toContain('Request `cr-0001` · waiting for approval · expires <!date^');
    const actions = blocks.find((b) => b.type === 'actions');
    expect(actions).toMatchObject({
      block_id: 'change_actions',
      elements: [
        { action_id: ACTION_APPROVE, value: 'cr-0001', style: 'primary' },
        { action_id: ACTION_REJECT, value: 'cr-0001', style: 'danger' },
        { action_id: ACTION_CANCEL, value: 'cr-0001' },
      ],
    });
  });

  it('shows warnings loudly', () => {
    const plan = mustPlan(service(), { ipAdd: [{ source: '0.0.0.0/0' }], mysqlEndpoint: true });
    const text = mrkdwnTexts(changeRequestBlocks(changeRequest(plan))).join('\n');
    expect(text).toContain(':warning: *0.0.0.0/0 opens the service to the whole internet.*');
    expect(text).toContain(':warning: *The MySQL endpoint will be opened');
  });

  it('shows no warning block when there is none', () => {
    expect(mrkdwnTexts(changeRequestBlocks(changeRequest(renamePlan()))).join('\n')).not.toContain(':warning:');
  });

  it('replaces the buttons with the outcome once decided, leaving only Undo', () => {
    const blocks = changeRequestBlocks(
      changeRequest(renamePlan(), {
        status: 'applied',
        decidedBy: 'U0APPROVER',
        decidedAt: NOW,
        outcome: { status: 200, apiRequestId: 'req-9' },
      }),
    );
    const actions = blocks.filter((b) => b.type === 'actions');
    expect(JSON.stringify(actions)).not.toMatch(/change_approve|change_reject|change_cancel/);
    expect(JSON.stringify(actions)).toContain('"action_id":"change_undo"');
    const failed = changeRequestBlocks(
      changeRequest(renamePlan(), { status: 'failed', decidedBy: 'U0APPROVER', decidedAt: NOW }),
    );
    expect(failed.some((b) => b.type === 'actions')).toBe(false);
    const text = mrkdwnTexts(blocks).join('\n');
    expect(text).toContain(':white_check_mark: *Applied.* Approved by <@U0APPROVER>');
    expect(text).toContain('(status 200, request id `req-9`)');
    expect(text).toContain('Request `cr-0001`');
  });

  it('keeps a plan with 200 IP additions and warnings within Slack limits, counting hidden changes', () => {
    const plan = mustPlan(service(), {
      ipAdd: [...ipEntries(200, 255), { source: '0.0.0.0/0' }, { source: '::/0' }],
      mysqlEndpoint: true,
    });
    expect(plan.changes).toHaveLength(203);
    const blocks = changeRequestBlocks(changeRequest(plan));
    assertBlockKitLimits(blocks, { max: 50 });
    const text = mrkdwnTexts(blocks).join('\n');
    const shown = (text.match(/^• \*/gm) ?? []).length;
    const hidden = Number(/…and (\d+) more changes/.exec(text)?.[1] ?? 0);
    expect(shown + hidden).toBe(203);
    expect(text).toContain('opens the service to the whole internet');
    expect(blocks.at(-1)?.type).toBe('actions');
  });

  it('keeps the warnings and buttons even when the changes overflow', () => {
    const plan = mustPlan(service({ ipAccessList: ipEntries(2000, 200) }), {
      ipRemove: ipEntries(2000).map((e) => e.source),
    });
    const blocks = changeRequestBlocks(changeRequest(plan));
    assertBlockKitLimits(blocks, { max: 50 });
    const text = mrkdwnTexts(blocks).join('\n');
    expect(text).toMatch(/…and \d+ more changes/);
    expect(text).toContain('removes the last IP access entry');
    expect(blocks.at(-1)?.type).toBe('actions');
  });
});

describe('outcomeText', () => {
  const request = (overrides: Partial<ChangeRequest>) =>
    changeRequest(renamePlan(), { decidedBy: 'U0APPROVER', decidedAt: NOW, ...overrides });

  it.each([
    ['pending', 'Waiting for approval.'],
    ['applying', ':hourglass: Approved by <@U0APPROVER>; applying the change…'],
    ['rejected', ':no_entry: *Rejected* by <@U0APPROVER> at <!date^'],
    ['cancelled', ':heavy_multiplication_x: *Cancelled* by <@U0APPROVER> at <!date^'],
    ['expired', ':hourglass_flowing_sand: *Expired* without approval at <!date^'],
  ] as const)('%s reads %j', (status, start) => {
    expect(outcomeText(request({ status }))).toContain(start);
  });

  it('explains a failure with the API status and request id, escaped', () => {
    const text = outcomeText(
      request({
        status: 'failed',
        outcome: { message: 'Refused: <!channel> & co', status: 400, apiRequestId: 'req-1' },
      }),
    );
    expect(text).toContain(':x: *Not applied.* Refused: &lt;!channel&gt; &amp; co Approved by <@U0APPROVER>');
    expect(text).toContain('(status 400, request id `req-1`)');
  });

  it('gives a failure without details a generic sentence', () => {
    expect(outcomeText(request({ status: 'failed' }))).toContain('The update failed.');
  });

  it('names "someone" when the decider is unknown', () => {
    expect(outcomeText(request({ status: 'rejected', decidedBy: undefined, decidedAt: undefined })).trimEnd()).toBe(
      ':no_entry: *Rejected* by someone',
    );
  });
});

describe('pendingBlocks', () => {
  it('says so when nothing waits', () => {
    expect(mrkdwnTexts(pendingBlocks([]))).toStrictEqual([
      'No change request is waiting for approval in this channel.',
    ]);
  });

  it('lists each pending request with id, service, requester and summary', () => {
    const blocks = pendingBlocks([changeRequest(renamePlan())]);
    expect(allTexts(blocks)).toContain('Pending change requests (1)');
    expect(mrkdwnTexts(blocks).join('\n')).toContain(
      '• `cr-0001` *orders-prod* `a1b2c3d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d` by <@U0REQUESTER>: Name: orders-prod → orders-main · expires <!date^',
    );
  });

  it('keeps 300 requests within Slack limits and accounts for all of them', () => {
    const plan = mustPlan(service(), { ipAdd: ipEntries(5, 100) });
    const requests = Array.from({ length: 300 }, (_, i) =>
      changeRequest(plan, { id: `cr-${String(i).padStart(4, '0')}` }),
    );
    const blocks = pendingBlocks(requests);
    assertBlockKitLimits(blocks, { max: 50 });
    const text = mrkdwnTexts(blocks).join('\n');
    const shown = (text.match(/^• `cr-/gm) ?? []).length;
    const hidden = Number(/…and (\d+) more_/.exec(text)?.[1] ?? 0);
    expect(shown + hidden).toBe(300);
    expect(hidden).toBeGreaterThan(0);
  });
});

describe('escaping in change rendering', () => {
  const hostile = '<!channel> @here <@U123> <http://evil|click> & `tick` *star*';

  it('never lets names, descriptions or ids ping or link', () => {
    const record = service({ name: hostile, ipAccessList: [{ source: '10.0.0.0/8', description: hostile }] });
    const plan = mustPlan(record, {
      name: 'clean-name',
      ipAdd: [{ source: '192.0.2.1', description: hostile }],
      ipRemove: ['10.0.0.0/8'],
    });
    const pending = changeRequest({ ...plan, serviceId: hostile }, { id: hostile });
    const failed = changeRequest(plan, {
      status: 'failed',
      decidedBy: hostile,
      outcome: { message: hostile, apiRequestId: hostile },
    });
    assertSafeMrkdwn(changeRequestBlocks(pending), ['U0REQUESTER']);
    assertSafeMrkdwn(changeRequestBlocks(failed), ['U0REQUESTER']);
    assertSafeMrkdwn(pendingBlocks([pending, failed]), ['U0REQUESTER']);
  });

  it('does not mention a requester id that is not a Slack user id', () => {
    assertSafeMrkdwn(changeRequestBlocks(changeRequest(renamePlan(), { requesterId: '!channel' })));
  });
});

describe('a scheduled request decided in an approval channel', () => {
  const decidedElsewhere = (status: ChangeRequest['status']) =>
    changeRequest(renamePlan(), {
      status,
      applyAt: NOW + 3_600_000,
      decidedBy: 'U0APPROVER',
      requirements: [
        { rule: 'prod', approvals: 1, approvers: ['U0APPROVER'], reasons: ['env=prod'], channel: 'C0DBAS' },
      ],
    });
  const actionIds = (blocks: ReturnType<typeof changeRequestBlocks>) =>
    blocks
      .filter((b) => b.type === 'actions')
      .flatMap((b) => ('elements' in b && Array.isArray(b.elements) ? b.elements : []))
      .map((e) => (e as { action_id?: string }).action_id);

  it("offers Cancel before its time in the requester's channel too: the requester is told they may cancel it", () => {
    expect(actionIds(changeRequestBlocks(decidedElsewhere('scheduled'), true))).toContain(ACTION_CANCEL);
    expect(actionIds(changeRequestBlocks(decidedElsewhere('scheduled'), false))).toContain(ACTION_CANCEL);
  });

  it("still shows no decision buttons in the requester's channel while it waits for approval", () => {
    expect(actionIds(changeRequestBlocks(decidedElsewhere('pending'), true))).toEqual([]);
  });
});

describe('Ask again on a request refused as stale', () => {
  const failed = (outcome: ChangeRequest['outcome'], intent = true) =>
    changeRequest(intent ? { ...renamePlan(), intent: { name: 'orders-main' } } : renamePlan(), {
      status: 'failed',
      decidedBy: 'U0APPROVER',
      decidedAt: NOW,
      ...(outcome ? { outcome } : {}),
    });
  const offers = (request: ChangeRequest) => JSON.stringify(changeRequestBlocks(request)).includes(ACTION_ASK_AGAIN);

  it('is offered only when it was stale and what was asked is kept', () => {
    expect(offers(failed({ message: 'changed', stale: true }))).toBe(true);
    expect(offers(failed({ message: 'the API refused' }))).toBe(false);
    // An Undo or an extension keeps no intent of its own: nothing to ask again.
    expect(offers(failed({ message: 'changed', stale: true }, false))).toBe(false);
  });
});
