/**
 * `upgrade-window SERVICE DAY HH:MM [tz:Area/City] | off` (issue 38): a kind on the part
 * …/upgradeWindow, asked in local time and sent as the UTC start the API takes (0, 6, 12 or 18),
 * on primary services only; a freeze in the policy file does not hold it back.
 */
import { describe, expect, it } from 'vitest';
import { ACTION_APPROVE } from '../../src/core/render/change.js';
import { ACTION_UNDO } from '../../src/core/render/temporary.js';
import { DEMO_IDS } from '../../src/simulator/seed.js';
import { answerText, appliedMessage, requestChange, textOf, useHarnesses, USERS, type Harness } from './harness.js';
import { usePolicyFiles } from './policy-files.js';

const harness = useHarnesses();
const policyFile = usePolicyFiles();

const windowWrites = (h: Harness, serviceId: string) =>
  h.simulator.requests.filter(
    (r) => (r.method === 'PUT' || r.method === 'DELETE') && r.path.endsWith(`/services/${serviceId}/upgradeWindow`),
  );

const day = (offsetDays: number) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);

describe('upgrade-window SERVICE DAY HH:MM | off', () => {
  it('refuses a start that is not 0, 6, 12 or 18 UTC, naming the nearest local ones', async () => {
    const h = await harness();
    const refused = await answerText(h, await h.command('upgrade-window orders-prod sun 00:00 tz:Asia/Tokyo'));
    expect(refused).toContain('sat 15:00 UTC');
    expect(refused).toContain('The nearest that do, in Asia/Tokyo: sat 21:00 or sun 03:00');
    expect(windowWrites(h, DEMO_IDS.ordersProd)).toHaveLength(0);
  });

  it('sends the PUT body asked, the read command shows it, and Undo sends DELETE', async () => {
    const h = await harness();
    const { id, posted } = await requestChange(h, 'upgrade-window orders-prod sun 09:00 tz:Asia/Tokyo');
    const request = textOf(posted.args.blocks);
    expect(request).toMatch(
      /Upgrade window\*: `none \(upgrades at any time\)` → `sun 00:00–06:00 UTC \(sun 09:00 Asia\/Tokyo\)`/,
    );
    expect(request).not.toContain('moves its clocks');
    expect(windowWrites(h, DEMO_IDS.ordersProd)).toHaveLength(0);

    await h.click(ACTION_APPROVE, id, USERS.approver);
    await appliedMessage(h, id);
    expect(windowWrites(h, DEMO_IDS.ordersProd).map((r) => [r.method, r.body])).toEqual([
      ['PUT', { weekday: 0, startHourUtc: 0 }],
    ]);
    const shown = await answerText(h, await h.command('upgrade-window orders-prod'));
    expect(shown).toMatch(/Sunday|sun/i);

    const after = h.slack.calls.length;
    await answerText(h, await h.click(ACTION_UNDO, id, USERS.requester));
    const undo = await h.slack.waitFor('chat.postMessage', (a) => textOf(a.blocks).includes('Change request'), {
      after,
    });
    expect(textOf(undo.args.blocks)).toMatch(/`sun 00:00–06:00 UTC` → `none \(upgrades at any time\)`/);
    const undoId = /CR-[0-9A-F]{10}/.exec(textOf(undo.args.blocks))?.[0] ?? '';
    await h.click(ACTION_APPROVE, undoId, USERS.approver);
    await appliedMessage(h, undoId);
    expect(windowWrites(h, DEMO_IDS.ordersProd).map((r) => r.method)).toEqual(['PUT', 'DELETE']);
  });

  it('notes the local start in the other season where the clocks move', async () => {
    const h = await harness();
    // Europe/Berlin is UTC+1 in winter and +2 in summer: 18:00 UTC today in Berlin's time.
    const local = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Berlin', hour: '2-digit', minute: '2-digit' })
      .format(
        new Date(Date.UTC(2026, 0, 1, 18) + Math.floor((Date.now() - Date.UTC(2026, 0, 1)) / 86_400_000) * 86_400_000),
      )
      .replace(/^24/, '00');
    const { posted } = await requestChange(h, `upgrade-window orders-prod sat ${local} tz:Europe/Berlin`);
    const text = textOf(posted.args.blocks);
    expect(text).toContain('sat 18:00–00:00 UTC');
    expect(text).toMatch(
      /Europe\/Berlin moves its clocks: in the other half of the year this window starts at sat (19|20):00 local time/,
    );
  });

  it('off removes the window with DELETE (billing-prod has one in the demo)', async () => {
    const h = await harness();
    const { id, posted } = await requestChange(h, 'upgrade-window billing-prod off');
    expect(textOf(posted.args.blocks)).toMatch(/`sat 18:00–00:00 UTC` → `none \(upgrades at any time\)`/);
    expect(textOf(posted.args.blocks)).toContain('may upgrade the service at any time');
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await appliedMessage(h, id);
    expect(windowWrites(h, DEMO_IDS.billingProd).map((r) => [r.method, r.body])).toEqual([['DELETE', undefined]]);
    expect(await answerText(h, await h.command('upgrade-window billing-prod'))).toContain('No upgrade window is set');
  });

  it('refuses a secondary service, off when there is none, and words it cannot read', async () => {
    const h = await harness();
    const secondary = await answerText(h, await h.command('upgrade-window orders-prod-readonly sun 00:00 tz:UTC'));
    expect(secondary).toContain('secondary service');
    expect(secondary).toContain('primary service');
    expect(await answerText(h, await h.command('upgrade-window orders-prod off'))).toContain(
      'already has that upgrade window',
    );
    expect(await answerText(h, await h.command('upgrade-window orders-prod someday 00:00'))).toContain(
      'is not a day of the week',
    );
    expect(await answerText(h, await h.command('upgrade-window orders-prod sun 25:00'))).toContain('HH:MM');
    expect(windowWrites(h, DEMO_IDS.ordersProd)).toHaveLength(0);
    expect(windowWrites(h, DEMO_IDS.ordersProdReadonly)).toHaveLength(0);
  });

  it('is not held back by a freeze that refuses other changes, and policies match its kind', async () => {
    const path = policyFile(
      [
        'rules:',
        '  - name: upgrades',
        '    match: { changes: [upgrade-window] }',
        '    approvals: 1',
        '    approvers: [U0APPROVER]',
        `    freeze: [{ from: ${day(-2)}, to: ${day(3)}, reason: "Release freeze" }]`,
        '  - name: production',
        '    match: { tags: { env: prod } }',
        '    approvals: 1',
        '    approvers: [U0APPROVER]',
        `    freeze: [{ from: ${day(-2)}, to: ${day(3)}, reason: "Release freeze" }]`,
        '',
      ].join('\n'),
    );
    const h = await harness({ env: { POLICY_FILE: path } });
    const frozen = await answerText(h, await h.command('core-dumps orders-prod on'));
    expect(frozen).toContain('Release freeze');

    const { id, posted } = await requestChange(h, 'upgrade-window orders-prod wed 06:00 tz:UTC');
    expect(textOf(posted.args.blocks)).toContain('upgrades');
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await appliedMessage(h, id);
    expect(windowWrites(h, DEMO_IDS.ordersProd).map((r) => r.body)).toEqual([{ weekday: 3, startHourUtc: 6 }]);

    const policy = await answerText(h, await h.command('policy orders-prod'));
    expect(policy).toContain('upgrade-window');
  });

  it('keeps upgrade-window SERVICE as the read, and is in help with its forms', async () => {
    const h = await harness();
    expect(await answerText(h, await h.command('upgrade-window orders-prod'))).toMatch(
      /no upgrade window|not set|none/i,
    );
    const help = await answerText(h, await h.command('help upgrade-window'));
    expect(help).toContain('upgrade-window orders-prod sun 00:00');
    expect(help).toContain('upgrade-window billing-prod off');
    expect(help).toContain('upgrade-window SERVICE`');
  });
});
