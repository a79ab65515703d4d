/**
 * A temporary change of an organization taken out of ORGANIZATIONS_FILE, seen by a bot restarted
 * since (no client left for it): its revert cannot be sent. The access must not stay open in
 * silence: the log says so at start and on every try, its thread once a day, and the bot keeps
 * trying (the revert stays due).
 */
import { describe, expect, it } from 'vitest';
import { ApprovalFlow } from '../../src/approval/approval-flow.js';
import { ApproverPolicy } from '../../src/approval/approvers.js';
import { TemporaryChanges } from '../../src/approval/temporary-changes.js';
import { UnknownOrganizationError } from '../../src/ports/index.js';
import { demoServices } from '../../src/simulator/seed.js';
import { MemoryChangeStore } from '../../src/store/index.js';
import { buildChangeRequest, buildPlan } from '../store/fixtures.js';
import { InProcessDirectory } from '../../src/simulator/directory.js';
import { recordingLog } from '../support/in-process.js';
import { RecordingMessenger } from '../support/recording-messenger.js';

const HOUR_MS = 3_600_000;

async function restartedWithoutBilling() {
  const store = new MemoryChangeStore();
  const messenger = new RecordingMessenger();
  const logger = recordingLog();
  const clock = { now: Date.now() };
  const directory = new InProcessDirectory(demoServices());
  const grant = buildChangeRequest({
    organization: 'billing',
    plan: buildPlan({ serviceId: 'svc-ledger', serviceName: 'ledger-prod' }),
    temporary: { durationMs: HOUR_MS, remindAfterMs: HOUR_MS / 2 },
    messageTs: '1700000000.000001',
  });
  await store.create(grant);
  const move = (from: 'pending' | 'applying', to: 'applying' | 'applied', action: 'approved' | 'applied') =>
    store.transition(grant.id, {
      from: [from],
      to,
      actorId: 'U-approver',
      now: clock.now,
      audit: { action, summary: 'x' },
    });
  await move('pending', 'applying', 'approved');
  await move('applying', 'applied', 'applied');
  const flow = new ApprovalFlow({
    cloud: directory,
    cloudOf: (organization) => {
      if (organization === 'billing') throw new UnknownOrganizationError(organization);
      return directory;
    },
    store,
    messenger,
    policy: new ApproverPolicy({ approvers: [], allowSelfApproval: false, messenger }),
    ttlMs: HOUR_MS,
    logger,
    now: () => clock.now,
    recheckDelaysMs: [],
  });
  const temporary = new TemporaryChanges({ flow, store, messenger, logger, now: () => clock.now });
  return { store, messenger, logger, clock, grant, temporary, flow };
}

describe('a temporary change whose organization left the file', () => {
  it('is named in the log at start, with what to do', async () => {
    const { logger, grant, temporary } = await restartedWithoutBilling();
    await temporary.warnUnrevertable((organization) => organization !== 'billing');
    const said = logger.lines.filter((line) => line.includes(grant.id));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain('organization billing, which ORGANIZATIONS_FILE no longer has: put it back');
    await temporary.warnUnrevertable(() => true);
    expect(logger.lines.filter((line) => line.includes(grant.id))).toHaveLength(1);
  });

  it('past its time, is said in its thread once, in the log each try, and stays due until it can be reverted', async () => {
    const { store, messenger, logger, clock, grant, temporary } = await restartedWithoutBilling();
    clock.now += 2 * HOUR_MS;
    await temporary.tick();
    const inThread = messenger.sent.filter((sent) => sent.kind === 'post' && sent.message.threadTs === grant.messageTs);
    const notes = inThread.filter((sent) => JSON.stringify(sent.message.blocks).includes('cannot take it back'));
    expect(notes).toHaveLength(1);
    expect(JSON.stringify(notes[0]?.message.blocks)).toContain('`billing` is no longer in the bot');
    // Tried again after its back-off: logged again, not said again in the channel.
    clock.now = ((await store.revertDueAt(grant.id)) ?? clock.now) + 1;
    await temporary.tick();
    expect(logger.lines.filter((line) => line.includes('cannot be reverted: its organization billing'))).toHaveLength(
      2,
    );
    expect(
      messenger.sent.filter((sent) => JSON.stringify(sent.message.blocks).includes('cannot take it back')),
    ).toHaveLength(1);
    expect(await store.revertDueAt(grant.id)).toBeGreaterThan(clock.now);
    expect((await store.get(grant.id))?.status).toBe('applied');
  });

  it('Revert now, Extend and Undo clicked on it say why nothing was done, not "an internal error, try again"', async () => {
    const { grant, temporary, store } = await restartedWithoutBilling();
    for (const click of [
      () => temporary.revertNow(grant.id, grant.requesterId),
      () => temporary.extend(grant.id, grant.requesterId),
      () => temporary.undo(grant.id, grant.requesterId),
    ]) {
      const reply = await click();
      expect(reply?.text).toContain('`billing` is no longer in the bot');
      expect(reply?.text).toContain('nothing was changed');
    }
    // The Extend's claim was let go: clicked again, it says the same, not "already being filed".
    expect((await temporary.extend(grant.id, grant.requesterId))?.text).toContain('`billing` is no longer in the bot');
    expect((await store.get(grant.id))?.status).toBe('applied');
  });
});

describe('a scheduled change whose organization left the file', () => {
  it('is not applied at its time, and its record names the organization and what to do', async () => {
    const { store, clock, flow } = await restartedWithoutBilling();
    const applyAt = clock.now + 60_000;
    const scheduled = buildChangeRequest({
      organization: 'billing',
      plan: buildPlan({ serviceId: 'svc-ledger', serviceName: 'ledger-prod' }),
      applyAt,
      expiresAt: applyAt,
    });
    await store.create(scheduled);
    await store.transition(scheduled.id, {
      from: ['pending'],
      to: 'scheduled',
      actorId: 'U-approver',
      now: clock.now,
      audit: { action: 'approved', summary: 'x' },
    });
    clock.now = applyAt + 1;
    await flow.startDueScheduled('bot', 60_000);
    const settled = await store.get(scheduled.id);
    expect(settled?.status).toBe('failed');
    expect(settled?.outcome?.message).toBe(
      "Its organization billing is no longer in the bot's list of organizations, so nothing was changed. An operator must put it back (and reload the bot); then ask again.",
    );
  });
});
