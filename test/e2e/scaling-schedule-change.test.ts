/**
 * `scaling-schedule SERVICE add|remove|clear …` (issue 38): a kind on the part …/scalingSchedule.
 * The API replaces the whole list, so the request shows it whole before → after, sends it whole,
 * is stale when the list changed in the console meanwhile, and Undo puts the list back as it was.
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

const schedulePath = `/services/${DEMO_IDS.ordersProd}/scalingSchedule`;
const scheduleWrites = (h: Harness) =>
  h.simulator.requests
    .filter((r) => (r.method === 'POST' || r.method === 'DELETE') && r.path.endsWith(schedulePath))
    .map((r) => [r.method, r.body]);

const BUSINESS = { name: 'business hours', weekdays: [1, 2, 3, 4, 5], startHourUtc: 8, endHourUtc: 18, numReplicas: 6 };
const NIGHT = { name: 'night', weekdays: [0, 1, 2, 3, 4, 5, 6], startHourUtc: 22, endHourUtc: 6, numReplicas: 2 };
/** The entries as the bot sends them back: a replica count as an equal band, the mode spelled out. */
const sentBack = ({ numReplicas, ...entry }: typeof BUSINESS) => ({
  ...entry,
  autoscalingMode: 'vertical',
  minReplicas: numReplicas,
  maxReplicas: numReplicas,
});

async function undoRequest(h: Harness, id: string): Promise<{ undoId: string; text: string }> {
  const after = h.slack.calls.length;
  await answerText(h, await h.click(ACTION_UNDO, id, USERS.requester));
  const undo = await h.slack.waitFor('chat.postMessage', (a) => textOf(a.blocks).includes('Change request'), { after });
  const text = textOf(undo.args.blocks);
  return { undoId: /CR-[0-9A-F]{10}/.exec(text)?.[0] ?? '', text };
}

describe('scaling-schedule SERVICE add', () => {
  it('reads local days and hours as UTC, sends the whole list once approved, and Undo clears it', async () => {
    const h = await harness();
    const { id, posted } = await requestChange(
      h,
      'scaling-schedule orders-prod add "business hours" mon-fri 09:00-18:00 replicas 6 memory 32 tz:Asia/Tokyo',
    );
    const request = textOf(posted.args.blocks);
    // Tokyo is UTC+9 all year, no note; 09:00–18:00 there is 00:00–09:00 UTC, the same days.
    expect(request).toContain(
      '*Scaling schedule*: `no schedule` → `+ business hours: mon–fri 00:00–09:00 UTC, 6 × 32 GB`',
    );
    expect(request).not.toContain('moves its clocks');
    expect(scheduleWrites(h)).toEqual([]);

    await h.click(ACTION_APPROVE, id, USERS.approver);
    await appliedMessage(h, id);
    expect(scheduleWrites(h)).toEqual([
      [
        'POST',
        {
          entries: [
            {
              name: 'business hours',
              weekdays: [1, 2, 3, 4, 5],
              startHourUtc: 0,
              endHourUtc: 9,
              autoscalingMode: 'vertical',
              minReplicaMemoryGb: 32,
              maxReplicaMemoryGb: 32,
              minReplicas: 6,
              maxReplicas: 6,
            },
          ],
        },
      ],
    ]);
    expect(await answerText(h, await h.command('scaling-schedule orders-prod'))).toContain('*business hours* mon–fri');

    const { undoId, text } = await undoRequest(h, id);
    expect(text).toContain('`− business hours: mon–fri 00:00–09:00 UTC, 6 × 32 GB`');
    await h.click(ACTION_APPROVE, undoId, USERS.approver);
    await appliedMessage(h, undoId);
    expect(scheduleWrites(h).at(-1)).toEqual(['DELETE', undefined]);
    expect(await answerText(h, await h.command('scaling-schedule orders-prod'))).toContain('No scaling schedule');
  });

  it('moves the days with the hours when the UTC start falls on the day before', async () => {
    const h = await harness();
    await requestChange(h, 'scaling-schedule orders-prod add "morning" mon-fri 08:00-10:00 idle off tz:Asia/Tokyo');
    const posted = h.slack.callsOf('chat.postMessage', (a) => textOf(a.blocks).includes('morning'));
    // 08:00 Monday in Tokyo is 23:00 Sunday UTC.
    expect(textOf(posted[0]?.args.blocks)).toContain('`+ morning: sun–thu 23:00–01:00 UTC, idle off`');
  });

  it('notes the local hours in the other season for a zone that moves its clocks', async () => {
    const h = await harness();
    const { posted } = await requestChange(
      h,
      'scaling-schedule orders-prod add "business hours" weekdays 09:00-17:00 replicas 4 tz:Europe/Berlin',
    );
    expect(textOf(posted.args.blocks)).toMatch(
      /Europe\/Berlin moves its clocks, and the schedule is kept in UTC: in the other half of the year “?"?business hours"?”? runs (08|10):00–(16|18):00 local time/,
    );
  });

  it('refuses times off the whole UTC hour, overlaps, bad bounds and settings it cannot read', async () => {
    const h = await harness();
    await callSimulatorApi(h, 'POST', schedulePath, { entries: [BUSINESS] });
    const before = scheduleWrites(h).length;
    const say = async (text: string) => answerText(h, await h.command(text));

    expect(await say('scaling-schedule orders-prod add "late" daily 18:30-22:00 replicas 2 tz:UTC')).toContain(
      'The nearest that are: 18:00 or 19:00 UTC',
    );
    expect(await say('scaling-schedule orders-prod add "late" daily 19:00-23:00 replicas 2 tz:Asia/Kolkata')).toContain(
      'The nearest that are: 18:30 or 19:30 Asia/Kolkata',
    );
    const overlap = await say('scaling-schedule orders-prod add "lunch" mon 12:00-13:00 replicas 8 tz:UTC');
    expect(overlap).toContain('overlaps the entry "business hours"');
    expect(overlap).toContain('mon 12:00 UTC');
    expect(await say('scaling-schedule orders-prod add "big" sat 00:00-06:00 replicas 50 tz:UTC')).toContain(
      'Replicas must be a whole number from 1 to 20; 50 is not.',
    );
    expect(await say('scaling-schedule orders-prod add "odd" sat 00:00-06:00 memory 10 tz:UTC')).toContain(
      'Memory per replica must be a multiple of 4',
    );
    expect(await say('scaling-schedule orders-prod add "nap" sun 00:00-06:00 idle on after 2m tz:UTC')).toContain(
      'The idle timeout must be a whole number of minutes, at least 5',
    );
    expect(await say('scaling-schedule orders-prod add "band" sun 00:00-06:00 replicas 2-6 tz:UTC')).toContain(
      'give one size too',
    );
    expect(await say('scaling-schedule orders-prod add "again" funday 00:00-06:00 replicas 2')).toContain(
      'is not a day',
    );
    expect(await say('scaling-schedule orders-prod add "again" sun 00:00-06:00')).toContain('Say what the entry sets');
    expect(await say('scaling-schedule orders-prod add "business hours" sun 00:00-06:00 replicas 2 tz:UTC')).toContain(
      'has an entry called "business hours" already',
    );
    expect(await say('scaling-schedule orders-prod remove "nope"')).toContain('has no entry called "nope"');
    expect(await say('scaling-schedule orders-prod reshuffle')).toContain('can add, remove or clear');
    expect(scheduleWrites(h)).toHaveLength(before);
  });

  it('is refused as stale when the schedule changed in the console meanwhile', async () => {
    const h = await harness();
    const { id } = await requestChange(
      h,
      'scaling-schedule orders-prod add "weekend" sat,sun 00:00-24:00 idle on tz:UTC',
    );
    await callSimulatorApi(h, 'POST', schedulePath, { entries: [NIGHT] });
    const before = scheduleWrites(h).length;
    await h.click(ACTION_APPROVE, id, USERS.approver);
    const settled = await h.slack.waitFor(
      'chat.update',
      (a) => textOf(a.blocks).includes(id) && /Not applied|Applied/.test(textOf(a.blocks)),
    );
    expect(textOf(settled.args.blocks)).toContain('The service changed since this request was made (Scaling schedule)');
    expect(scheduleWrites(h)).toHaveLength(before);
  });

  it('says in a sentence when the organization does not have scheduled autoscaling', async () => {
    const h = await harness();
    h.simulator.scalingSchedulesDisabled = true;
    const text = await answerText(
      h,
      await h.command('scaling-schedule orders-prod add "x" sat 00:00-06:00 replicas 2 tz:UTC'),
    );
    expect(text).toContain('not enabled for this organization');
    expect(scheduleWrites(h)).toEqual([]);
  });
});

describe('scaling-schedule SERVICE remove and clear', () => {
  it('shows the removed entry with −, sends the rest exactly, and Undo puts the whole list back', async () => {
    const h = await harness();
    await callSimulatorApi(h, 'POST', schedulePath, { entries: [BUSINESS, NIGHT] });
    const { id, posted } = await requestChange(h, 'scaling-schedule orders-prod remove "night"');
    const request = textOf(posted.args.blocks);
    expect(request).toContain('`  business hours: mon–fri 08:00–18:00 UTC, 6`');
    expect(request).toContain('`− night: daily 22:00–06:00 UTC, 2`');
    const seeded = scheduleWrites(h).length;
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await appliedMessage(h, id);
    expect(scheduleWrites(h).slice(seeded)).toEqual([['POST', { entries: [sentBack(BUSINESS)] }]]);

    const { undoId, text } = await undoRequest(h, id);
    expect(text).toContain('`+ night: daily 22:00–06:00 UTC, 2`');
    await h.click(ACTION_APPROVE, undoId, USERS.approver);
    await appliedMessage(h, undoId);
    expect(scheduleWrites(h).at(-1)).toEqual(['POST', { entries: [sentBack(BUSINESS), sentBack(NIGHT)] }]);
  });

  it('clears with DELETE, and says when there is nothing to clear', async () => {
    const h = await harness();
    expect(await answerText(h, await h.command('scaling-schedule orders-prod clear'))).toContain(
      'has no scaling schedule',
    );
    await callSimulatorApi(h, 'POST', schedulePath, { entries: [BUSINESS] });
    const { id, posted } = await requestChange(h, 'scaling-schedule orders-prod clear');
    expect(textOf(posted.args.blocks)).toContain('`− business hours: mon–fri 08:00–18:00 UTC, 6`');
    expect(textOf(posted.args.blocks)).toContain('the base configuration applies at all times');
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await appliedMessage(h, id);
    expect(scheduleWrites(h).at(-1)).toEqual(['DELETE', undefined]);
  });

  it('matches policy rules by its kind, and keeps scaling-schedule SERVICE as the read', async () => {
    const path = policyFile(
      'rules:\n  - name: schedules\n    match: { changes: [scaling-schedule] }\n    approvals: 2\n',
    );
    const h = await harness({ env: { POLICY_FILE: path } });
    const { posted } = await requestChange(h, 'scaling-schedule orders-prod add "x" sat 00:00-06:00 replicas 2 tz:UTC');
    expect(textOf(posted.args.blocks)).toContain('schedules');
    expect(await answerText(h, await h.command('scaling-schedule orders-prod'))).toContain('No scaling schedule');
    const help = await answerText(h, await h.command('help scaling-schedule'));
    expect(help).toContain('scaling-schedule billing-prod remove');
    expect(help).toContain('scaling-schedule SERVICE`');
  });
});
