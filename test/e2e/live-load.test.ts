/**
 * The live load before a risky change (issue 38): a stop, a scale-down or idle scaling on shows
 * its approvers what runs right now, and warns loudly when the change ends running queries or
 * leaves less memory than is in use. One metrics read per service per 30 s whoever asks; a
 * service that is not running is never read; a failed read is one plain line, and the request
 * is filed all the same.
 */
import { describe, expect, it } from 'vitest';
import { DEMO_IDS } from '../../src/simulator/seed.js';
import { ACTION_APPROVE } from '../../src/core/render/change.js';
import { ACTION_UNDO } from '../../src/core/render/temporary.js';
import { appliedMessage, CHANNEL, requestChange, textOf, useHarnesses, USERS, type Harness } from './harness.js';

const harness = useHarnesses();
const GIB = 1024 ** 3;

const metricsReads = (h: Harness) => h.simulator.requests.filter((r) => r.path.endsWith('/prometheus'));

describe('live load in a risky change request', () => {
  it('shows what runs on a stop, and warns loudly naming the queries it ends', async () => {
    const h = await harness();
    h.simulator.setLoad(DEMO_IDS.ordersProd, { queries: 12, memoryBytesPerReplica: 20 * GIB });
    const { id, posted } = await requestChange(h, 'stop orders-prod');
    const text = textOf(posted.args.blocks);
    expect(text).toMatch(
      /\*Right now:\* 12 queries running, 20 of 32 GB in use on the busiest replica, read \d+ s ago\./,
    );
    expect(text).toContain(':warning: *12 queries were running when this was asked: this change ends them.*');
    expect(metricsReads(h)).toHaveLength(1);
    // Kept with the request as data: drawn again from the store, the line is still there.
    const stored = await h.bot.changeStore.get(id);
    expect(stored?.plan.liveLoad).toMatchObject({ kind: 'read', queries: 12, busiestMemoryBytes: 20 * GIB });
  });

  it('warns when memory in use is above the new size, and not about queries a scale-down keeps', async () => {
    const h = await harness();
    h.simulator.setLoad(DEMO_IDS.ordersProd, { queries: 5, memoryBytesPerReplica: 20 * GIB });
    const text = textOf((await requestChange(h, 'scale orders-prod memory 16')).posted.args.blocks);
    expect(text).toContain('*Right now:* 5 queries running, 20 of 32 GB in use on the busiest replica');
    expect(text).toContain(
      ':warning: *20 GB in use on the busiest replica is more than the 16 GB per replica this change leaves.*',
    );
    expect(text).not.toContain('this change ends');
    // Idle scaling on: the same line, no warning (it idles only when nothing runs).
    const idle = textOf((await requestChange(h, 'idle orders-prod on')).posted.args.blocks);
    expect(idle).toContain('*Right now:* 5 queries running');
    expect(idle).not.toContain('this change ends');
  });

  it('shows no load and reads nothing for a change that risks nothing, or a service that is not running', async () => {
    const h = await harness();
    const up = textOf((await requestChange(h, 'scale orders-prod replicas 6')).posted.args.blocks);
    expect(up).not.toContain('Right now');
    // sandbox-dev is idle: a read would find no replica, and must never wake it.
    const idle = textOf((await requestChange(h, 'stop sandbox-dev')).posted.args.blocks);
    expect(idle).not.toContain('Right now');
    expect(idle).not.toContain('Live load');
    expect(metricsReads(h)).toStrictEqual([]);
  });

  it('says in one plain line that the load could not be read, and files the request all the same', async () => {
    const h = await harness();
    h.simulator.failLoad(DEMO_IDS.ordersProd, 403);
    const text = textOf((await requestChange(h, 'stop orders-prod')).posted.args.blocks);
    expect(text).toContain('Live load could not be read: ClickHouse Cloud answered 403.');
    expect(text).not.toContain(':warning: *Live load');
    expect(text).toContain('waiting for approval');
  });

  it('shows it on an Undo that stops the service (the Undo of a start)', async () => {
    const h = await harness({ simulatorTransitionMs: 200 });
    const { id } = await requestChange(h, 'start orders-staging');
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await appliedMessage(h, id);
    await expect.poll(() => h.simulator.service(DEMO_IDS.ordersStaging)?.state, { timeout: 5_000 }).toBe('running');
    h.simulator.setLoad(DEMO_IDS.ordersStaging, { queries: 2, memoryBytesPerReplica: 3 * GIB });
    const after = h.slack.calls.length;
    await h.click(ACTION_UNDO, id, USERS.requester);
    const undo = await h.slack.waitFor('chat.postMessage', (a) => textOf(a.blocks).includes('Change request'), {
      after,
    });
    expect(textOf(undo.args.blocks)).toContain('*Right now:* 2 queries running');
    expect(textOf(undo.args.blocks)).toContain(
      ':warning: *2 queries were running when this was asked: this change ends them.*',
    );
  });

  it('reads the metrics once for 20 requests at once, within the API budget', async () => {
    const h = await harness();
    h.simulator.faults.enforceRateLimit = { limit: 10, windowMs: 10_000 };
    h.simulator.setLoad(DEMO_IDS.ordersProd, { queries: 3, memoryBytesPerReplica: 4 * GIB });
    const people = Array.from({ length: 20 }, (_, n) => `U0LOAD${String(n).padStart(3, '0')}`);
    const after = h.slack.calls.length;
    await Promise.all(people.map((user) => h.command('stop orders-prod', user, CHANNEL)));
    await expect
      .poll(
        () =>
          h.slack.calls
            .slice(after)
            .filter((c) => c.method === 'chat.postMessage' && textOf(c.args.blocks).includes('Change request')).length,
        { timeout: 20_000 },
      )
      .toBe(20);
    const posted = h.slack.calls
      .slice(after)
      .filter((c) => c.method === 'chat.postMessage' && textOf(c.args.blocks).includes('Change request'));
    for (const call of posted) expect(textOf(call.args.blocks)).toContain('*Right now:* 3 queries running');
    expect(metricsReads(h)).toHaveLength(1);
    // Whatever else the 20 requests read, no 10 s holds more than the API's 10 requests.
    const times = h.simulator.requests.map((r) => r.at).sort((a, b) => a - b);
    const busiest = Math.max(...times.map((at) => times.filter((t) => t >= at && t < at + 10_000).length));
    expect(busiest).toBeLessThanOrEqual(10);
  });
});
