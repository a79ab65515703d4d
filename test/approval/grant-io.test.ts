/**
 * GrantIo's writes as the store keeps them: what a revert that found nothing left records is
 * plain text (history and the audit export escape it when they show it), not mrkdwn.
 */
import { describe, expect, it } from 'vitest';
import { GrantIo } from '../../src/approval/grant-io.js';
import { InProcessDirectory } from '../../src/simulator/directory.js';
import { MemoryChangeStore } from '../../src/store/index.js';
import { changeRequest, mustPlan, service } from '../core/fixtures.js';
import { recordingLog } from '../support/in-process.js';
import { RecordingMessenger } from '../support/recording-messenger.js';

describe('GrantIo.settleUnsentRevert', () => {
  it('records the plain sentence, so history and the audit export do not show it escaped twice', async () => {
    const store = new MemoryChangeStore();
    const warning = 'The name is no longer <tmp> & *old*.';
    const plan = { ...mustPlan(service(), { name: 'x' }), update: {}, changes: [], warnings: [warning] };
    const now = Date.now(); // the memory store keeps requests by the wall clock
    const revert = changeRequest(plan, {
      id: 'CR-1-R',
      revertOf: 'CR-1',
      createdAt: now,
      expiresAt: now + 3_600_000,
    });
    await store.create(revert);
    const io = new GrantIo({
      store,
      cloudOf: () => new InProcessDirectory([]),
      messenger: new RecordingMessenger(),
      logger: recordingLog(),
      now: () => now,
    });
    expect(await io.settleUnsentRevert(revert, 'the bot')).toBe(true);
    expect((await store.get('CR-1-R'))?.outcome?.message).toBe(`Nothing to revert: ${warning}`);
  });
});
