/** The Home tab (issue 25): its three sections, their buttons, escaping, and Block Kit's limits with hundreds of requests. */
import { describe, expect, it } from 'vitest';
import type { ChangeRequest, ChangeStatus } from '../../../src/core/change/types.js';
import { ACTION_APPROVE, ACTION_CANCEL, ACTION_REJECT } from '../../../src/core/render/change.js';
import { homeView, HOME_FINISHED_SHOWN, HOME_OPEN_SHOWN, HOME_WAITING_SHOWN } from '../../../src/core/render/home.js';
import { ACTION_EXTEND, ACTION_REVERT_NOW } from '../../../src/core/render/temporary.js';
import { pendingRequest } from '../approval/world.js';
import { allTexts, assertBlockKitLimits, assertSafeMrkdwn } from './block-kit.js';

const NOW = 1_800_000_000_000;

function request(id: string, overrides: Partial<ChangeRequest> = {}): ChangeRequest {
  return {
    ...pendingRequest(),
    id,
    requesterId: 'U0ALICE',
    createdAt: NOW - 60_000,
    expiresAt: NOW + 3_600_000,
    ...overrides,
  };
}

type Button = { action_id: string; value: string };
function buttons(view: ReturnType<typeof homeView>): Button[] {
  return (JSON.parse(JSON.stringify(view.blocks)) as Array<{ type: string; elements?: Button[]; accessory?: Button }>)
    .flatMap((b) => (b.type === 'actions' ? (b.elements ?? []) : b.accessory ? [b.accessory] : []))
    .map(({ action_id, value }) => ({ action_id, value }));
}

describe('the Home tab', () => {
  it('shows what waits for the person with Approve and Reject, their requests and their temporary changes', () => {
    const view = homeView({
      userId: 'U0BOB',
      waiting: [request('CR-W1', { reason: 'nightly load' })],
      mine: [
        request('CR-M1', { requesterId: 'U0BOB' }),
        request('CR-M2', { requesterId: 'U0BOB', status: 'rejected', decidedBy: 'U0CAROL', decidedAt: NOW - 1_000 }),
      ],
      temporary: [{ request: request('CR-T1', { requesterId: 'U0BOB', status: 'applied' }), dueAt: NOW + 600_000 }],
      now: NOW,
    });
    expect(view.type).toBe('home');
    const text = allTexts(view.blocks);
    expect(text).toContain('Waiting for you (1)');
    expect(text).toContain('Your requests (1 open)');
    expect(text).toContain('Your temporary changes (1)');
    expect(text).toContain('CR-W1');
    expect(text).toContain('nightly load');
    expect(text).toContain('rejected by <@U0CAROL>');
    expect(buttons(view)).toStrictEqual([
      { action_id: ACTION_APPROVE, value: 'CR-W1' },
      { action_id: ACTION_REJECT, value: 'CR-W1' },
      { action_id: ACTION_CANCEL, value: 'CR-M1' },
      { action_id: ACTION_EXTEND, value: 'CR-T1' },
      { action_id: ACTION_REVERT_NOW, value: 'CR-T1' },
    ]);
    assertBlockKitLimits(view.blocks, { max: 100 });
  });

  it('says so when a section is empty', () => {
    const text = allTexts(homeView({ userId: 'U0DAVE', waiting: [], mine: [], temporary: [], now: NOW }).blocks);
    expect(text).toContain('Nothing is waiting for your approval.');
    expect(text).toContain('You have not asked for any change lately.');
    expect(text).toContain('No temporary change of yours is active.');
  });

  it('shows data as data: names, reasons and changes cannot mention, link or format', () => {
    const evil = '<!channel> @here *bold* <https://evil.example|click> `x` \u202Egnp.exe';
    const hostile = request('CR-EVIL', {
      reason: evil,
      plan: {
        ...pendingRequest().plan,
        serviceName: evil,
        changes: [{ field: 'name', label: 'Name', before: 'a', after: evil }],
      },
    });
    const view = homeView({
      userId: 'U0BOB',
      waiting: [hostile],
      mine: [{ ...hostile, requesterId: 'U0BOB' }],
      temporary: [{ request: { ...hostile, status: 'applied' }, dueAt: NOW }],
      now: NOW,
    });
    assertSafeMrkdwn(view.blocks, ['U0ALICE', 'U0BOB']);
    expect(allTexts(view.blocks)).toContain('[U+202E]');
  });

  it("keeps an open request's line with Cancel within a section's 3,000 characters (many IP entries from the form)", () => {
    const changes = Array.from({ length: 20 }, (_, i) => ({
      field: 'ipAccessList' as const,
      label: 'IP access',
      before: 'absent',
      after: `10.0.0.${i}/32 (${'d'.repeat(250)})`,
    }));
    const long = request('CR-LONG', { requesterId: 'U0BOB', plan: { ...pendingRequest().plan, changes } });
    for (const status of ['pending', 'scheduled'] as const) {
      const view = homeView({ userId: 'U0BOB', waiting: [], mine: [{ ...long, status }], temporary: [], now: NOW });
      assertBlockKitLimits(view.blocks, { max: 100 });
      expect(buttons(view)).toStrictEqual([{ action_id: ACTION_CANCEL, value: 'CR-LONG' }]);
      expect(allTexts(view.blocks)).toContain(status === 'pending' ? 'waiting for approval' : 'approved,');
    }
  });

  it('offers no Cancel on what the flow would refuse to cancel: a break-glass review, a revert filed for them', () => {
    const view = homeView({
      userId: 'U0BOB',
      waiting: [],
      mine: [
        request('CR-1-B', { requesterId: 'U0BOB', reviewOf: 'CR-1' }),
        request('CR-2-R', { requesterId: 'U0BOB', revertOf: 'CR-2' }),
        request('CR-3', { requesterId: 'U0BOB', extendOf: 'CR-2' }),
      ],
      temporary: [],
      now: NOW,
    });
    expect(buttons(view)).toStrictEqual([{ action_id: ACTION_CANCEL, value: 'CR-3' }]);
    expect(allTexts(view.blocks)).toContain('CR-1-B');
  });

  it('keeps hundreds of requests within 100 blocks, newest first, and says how many more', () => {
    const statuses: ChangeStatus[] = ['applied', 'failed', 'rejected', 'cancelled', 'expired'];
    const waiting = Array.from({ length: 300 }, (_, i) => request(`CR-W${i}`, { createdAt: NOW - 1_000_000 + i }));
    const mine = Array.from({ length: 400 }, (_, i) =>
      request(`CR-M${i}`, {
        requesterId: 'U0BOB',
        createdAt: NOW - 1_000_000 + i,
        status: i % 2 === 0 ? 'pending' : (statuses[i % statuses.length] ?? 'applied'),
        reason: 'r'.repeat(500),
      }),
    );
    const temporary = Array.from({ length: 150 }, (_, i) => ({
      request: request(`CR-T${i}`, { requesterId: 'U0BOB', status: 'applied' }),
      dueAt: NOW + i * 1_000,
    }));
    const view = homeView({ userId: 'U0BOB', waiting, mine, temporary, now: NOW });
    assertBlockKitLimits(view.blocks, { max: 100 });
    const text = allTexts(view.blocks);
    expect(text).toContain('Waiting for you (300)');
    expect(text).toContain(`…and ${300 - HOME_WAITING_SHOWN} more older requests waiting for you`);
    expect(text).toContain('…and 140 more temporary changes of yours');
    expect(text).toContain('Your requests (200 open)');
    expect(text).toMatch(/…and \d+ more/);
    // The newest waiting request comes first; the oldest is cut.
    const approve = buttons(view).filter((b) => b.action_id === ACTION_APPROVE);
    expect(approve[0]?.value).toBe('CR-W299');
    expect(approve).toHaveLength(HOME_WAITING_SHOWN);
    expect(text).not.toContain('`CR-W0`');
    // The soonest revert first.
    expect(buttons(view).find((b) => b.action_id === ACTION_EXTEND)?.value).toBe('CR-T0');
    // Cancel on each open request of theirs shown, newest first.
    const cancel = buttons(view).filter((b) => b.action_id === ACTION_CANCEL);
    expect(cancel).toHaveLength(HOME_OPEN_SHOWN);
    expect(cancel[0]?.value).toBe('CR-M398');
    // At most the last few finished.
    expect(
      text.match(/:white_check_mark: applied|:x: not applied|:no_entry: rejected|cancelled <|expired </g)?.length ?? 0,
    ).toBeLessThanOrEqual(HOME_FINISHED_SHOWN);
  });
});
