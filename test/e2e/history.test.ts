/**
 * An audit trail that lasts and tells the truth: noise elsewhere never erases a service's
 * history, a channel sees only its own requests, and an empty answer says how far back it looked.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { ACTION_APPROVE } from '../../src/core/render/change.js';
import { DEMO_IDS } from '../../src/simulator/seed.js';
import { buildChangeRequest } from '../store/fixtures.js';
import { answerText, CHANNEL, requestChange, textOf, useHarnesses, USERS } from './harness.js';

const harness = useHarnesses();

describe('history', () => {
  it('still shows an applied 0.0.0.0/0 on orders-prod after 2,600 requests filed and cancelled on another service', async () => {
    const h = await harness();
    const { id } = await requestChange(h, 'ip add orders-prod 0.0.0.0/0 partner');
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await h.slack.waitFor('chat.update', (a) => textOf(a.blocks).includes(id) && textOf(a.blocks).includes('Applied'));

    // The noise goes through the bot's own store (real Redis), as 2,600 requests would.
    const store = h.bot.changeStore;
    for (let i = 0; i < 2_600; i += 1) {
      const noise = buildChangeRequest({ id: `CR-N${String(i).padStart(9, '0')}`, channelId: CHANNEL });
      await store.create(noise);
      await store.transition(noise.id, {
        from: ['pending'],
        to: 'cancelled',
        actorId: USERS.outsider,
        now: Date.now(),
        audit: { action: 'cancelled', summary: 'noise' },
      });
    }
    const history = await answerText(h, await h.command('history orders-prod'));
    expect(history).toContain(id);
    expect(history).toContain('0.0.0.0/0');
    expect(history).toMatch(/applied by <@U0APPROVER>/);
    expect(history).not.toContain('nothing recorded');
  }, 60_000);

  it('shows only the requests of the channel it is typed in', async () => {
    const h = await harness();
    const privately = await h.command('rename orders-staging secret-project', USERS.requester, 'G0PRIVATE');
    await h.slack.waitFor(
      'chat.postMessage',
      (a) => a.channel === 'G0PRIVATE' && textOf(a.blocks).includes('Change request'),
    );
    await answerText(h, privately);

    const everything = await answerText(h, await h.command('history'));
    expect(everything).not.toContain('secret-project');
    const ofService = await answerText(h, await h.command('history orders-staging'));
    expect(ofService).not.toContain('secret-project');
    // Where it was typed, it is there.
    expect(await answerText(h, await h.command('history orders-staging', USERS.requester, 'G0PRIVATE'))).toContain(
      'secret-project',
    );
  });

  it('never answers "nothing recorded": it says how far back the record goes', async () => {
    const h = await harness();
    await requestChange(h, 'endpoint sandbox-dev mysql on');
    const empty = await answerText(h, await h.command(`history ${DEMO_IDS.eventsProd}`));
    expect(empty).toMatch(
      /No change request for events-prod was made in this channel within the record, which goes back to <!date\^\d+\^[^|]*\|[^>]+> \(entries are kept 400 days\)\./,
    );
    const some = await answerText(h, await h.command('history sandbox-dev'));
    expect(some).toContain('The record goes back to');
  });

  it('drops a request older than the audit retention from history SERVICE, and still says how far back the record goes', async () => {
    const retentionMs = 1_500;
    const h = await harness({ auditRetentionDays: retentionMs / 86_400_000 });
    const expired = await requestChange(h, 'rename sandbox-dev sandbox-expired');
    // Wall-clock time must pass (stream ids are Redis's clock); a request in between keeps the
    // channel's streams alive, as a busy channel's are.
    await sleep(retentionMs * 0.6);
    const kept = await requestChange(h, 'rename sandbox-dev sandbox-kept');
    await sleep(retentionMs * 0.45);

    const history = await answerText(h, await h.command('history sandbox-dev'));
    expect(history).toContain(kept.id);
    expect(history).not.toContain(expired.id);
    expect(history).not.toContain('sandbox-expired');
    expect(history).toContain('The record goes back to');
  });
});
