/**
 * `backup-config SERVICE [every Nh] [keep Nd] [at HH:MM] [default]` (issue 37), the first kind whose
 * target is a part of a service the API keeps apart (issue 36's typed targets): read afresh with
 * the record when asked and when approved, sent to PATCH …/backupConfiguration, verified on it.
 */
import { describe, expect, it } from 'vitest';
import { ACTION_APPROVE } from '../../src/core/render/change.js';
import { ACTION_UNDO } from '../../src/core/render/temporary.js';
import { DEMO_IDS } from '../../src/simulator/seed.js';
import {
  answerText,
  appliedMessage,
  callSimulatorApi,
  requestChange,
  textOf,
  useHarnesses,
  USERS,
  type Harness,
} from './harness.js';
import { usePolicyFiles } from './policy-files.js';

const harness = useHarnesses();
const policyFile = usePolicyFiles();

const configPatches = (h: Harness, serviceId: string) =>
  h.simulator.requests.filter(
    (r) => r.method === 'PATCH' && r.path.endsWith(`/services/${serviceId}/backupConfiguration`),
  );

const finalMessage = (h: Harness, id: string) =>
  h.slack.waitFor(
    'chat.update',
    (a) => textOf(a.blocks).includes(id) && /Failed|Applied|failed|applied/.test(textOf(a.blocks)),
  );

describe('backup-config', () => {
  it('shows before → after, sends exactly the fields asked once approved, and Undo puts them back', async () => {
    const h = await harness();
    const { id, posted } = await requestChange(h, 'backup-config orders-prod every 12h keep 7d');
    const request = textOf(posted.args.blocks);
    // orders-prod is backed up every 6 hours and keeps them 2 days (the demo organization).
    expect(request).toMatch(/Backups every\*: `6 hours` → `12 hours`/);
    expect(request).toMatch(/Backups kept\*: `2 days` → `7 days`/);
    expect(configPatches(h, DEMO_IDS.ordersProd)).toHaveLength(0);

    await h.click(ACTION_APPROVE, id, USERS.approver);
    await appliedMessage(h, id);
    expect(configPatches(h, DEMO_IDS.ordersProd).map((r) => r.body)).toEqual([
      { backupPeriodInHours: 12, backupRetentionPeriodInHours: 168 },
    ]);
    const backups = await answerText(h, await h.command('backups orders-prod'));
    expect(backups).toMatch(/12 h|12 hours/);

    const after = h.slack.calls.length;
    await answerText(h, await h.click(ACTION_UNDO, id, USERS.requester));
    const undo = await h.slack.waitFor('chat.postMessage', (a) => textOf(a.blocks).includes('Change request'), {
      after,
    });
    expect(textOf(undo.args.blocks)).toMatch(/Backups kept\*: `7 days` → `2 days`/);
  });

  it('reads at HH:MM in the zone given and sends the UTC time, with a note where the clocks move', async () => {
    const h = await harness();
    const { posted } = await requestChange(h, 'backup-config orders-prod at 02:00 tz:Asia/Tokyo');
    const request = textOf(posted.args.blocks);
    // Tokyo is UTC+9 all year: 02:00 there is 17:00 UTC, no note.
    expect(request).toMatch(/Backups start\*: `none` → `17:00 UTC`/);
    expect(request).not.toContain('moves its clocks');
    const berlin = await requestChange(h, 'backup-config billing-prod at 03:00 tz:Europe/Berlin');
    expect(textOf(berlin.posted.args.blocks)).toMatch(/moves its clocks/);
  });

  it('refuses bounds, a start time with another period, words it cannot read, and a change to nothing', async () => {
    const h = await harness();
    expect(await answerText(h, await h.command('backup-config orders-prod keep 50d'))).toContain('1 to 45 days');
    expect(await answerText(h, await h.command('backup-config orders-prod every 30h'))).toContain('1 to 24 hours');
    expect(await answerText(h, await h.command('backup-config orders-prod every 6h at 02:00'))).toContain(
      'A start time means one backup a day',
    );
    expect(await answerText(h, await h.command('backup-config orders-prod keep seven'))).toContain('keep 7d');
    expect(await answerText(h, await h.command('backup-config orders-prod off'))).toContain('cannot be switched off');
    expect(await answerText(h, await h.command('backup-config orders-prod at 02:00 tz:Mars/Olympus'))).toContain(
      'not a time zone',
    );
    const same = await answerText(h, await h.command('backup-config orders-prod every 6h'));
    expect(same).toContain('already backed up like that');
    expect(configPatches(h, DEMO_IDS.ordersProd)).toHaveLength(0);
  });

  it('is refused as stale when the configuration changed in the console meanwhile', async () => {
    const h = await harness();
    const { id } = await requestChange(h, 'backup-config orders-prod keep 7d');
    await callSimulatorApi(h, 'PATCH', `/services/${DEMO_IDS.ordersProd}/backupConfiguration`, {
      backupRetentionPeriodInHours: 96,
    });
    const before = configPatches(h, DEMO_IDS.ordersProd).length;
    await h.click(ACTION_APPROVE, id, USERS.approver);
    const settled = await finalMessage(h, id);
    expect(textOf(settled.args.blocks)).toMatch(/changed since|stale|Backups kept/i);
    expect(configPatches(h, DEMO_IDS.ordersProd)).toHaveLength(before);
  });

  it('carries its risks into policies: a retention cut needs the rule that names it', async () => {
    const path = policyFile(
      'rules:\n  - name: keep backups\n    match: { risks: [backup-retention-cut] }\n    approvals: 2\n',
    );
    const h = await harness({ env: { POLICY_FILE: path } });
    const { posted } = await requestChange(h, 'backup-config orders-prod keep 1d');
    expect(textOf(posted.args.blocks)).toContain('keep backups');
    expect(textOf(posted.args.blocks)).toContain('will be deleted');
    const policy = await answerText(h, await h.command('policy orders-prod'));
    expect(policy).toContain('backup-config');
  });

  it('says in a sentence when the organization is on the BASIC package', async () => {
    const h = await harness();
    h.simulator.basicPackage = true;
    const { id } = await requestChange(h, 'backup-config orders-prod keep 7d');
    await h.click(ACTION_APPROVE, id, USERS.approver);
    const settled = await finalMessage(h, id);
    expect(textOf(settled.args.blocks)).toMatch(/BASIC/);
  });

  it('is in help with its forms', async () => {
    const h = await harness();
    const help = await answerText(h, await h.command('help backup-config'));
    expect(help).toContain('backup-config orders-prod every 12h keep 7d');
    expect(help).toContain('default');
  });
});
