/** Approvers told by DM: once per request, a group resolved to its members, and a per-person hourly cap. */
import { describe, expect, it } from 'vitest';
import { ApproverDms, MAX_DMS_PER_PERSON_HOUR } from '../../src/approval/approver-dms.js';
import { MemoryChangeStore } from '../../src/store/memory/change-store.js';
import { changeRequest, mustPlan, NOW, service } from '../core/fixtures.js';
import { RecordingMessenger } from '../support/recording-messenger.js';

const requirements = [{ rule: 'dbas', approvals: 1, approvers: ['U0DBA', 'S0DBAS'], reasons: ['env=prod'] }];

function setup() {
  const store = new MemoryChangeStore();
  const messenger = new RecordingMessenger();
  messenger.groups.set('S0DBAS', ['U0ANA', 'U0DBA', 'U0REQ']);
  const logs: string[] = [];
  const dms = new ApproverDms({
    store,
    messenger,
    defaults: { approvers: [], allowSelfApproval: false },
    logger: { warn: (line: string) => logs.push(line) },
    now: () => NOW,
  });
  const request = (id: string) =>
    changeRequest(mustPlan(service(), { name: `renamed-${id}` }), {
      id,
      requesterId: 'U0REQ',
      requirements,
      createdAt: NOW,
      expiresAt: NOW + 3_600_000,
    });
  const dmsTo = (userId: string) => messenger.sent.filter((s) => s.kind === 'dm' && s.userId === userId);
  return { dms, request, dmsTo, logs, store, messenger };
}

describe('ApproverDms', () => {
  it('messages each approver once, the group by its members, never the requester', async () => {
    const { dms, request, dmsTo } = setup();
    const filed = request('CR-00000000A1');
    await dms.filed(filed);
    await dms.filed(filed);
    expect(dmsTo('U0DBA')).toHaveLength(1);
    expect(dmsTo('U0ANA')).toHaveLength(1);
    expect(dmsTo('U0REQ')).toHaveLength(0);
  });

  it('shows its DMs the request as it is when it moved while they were being sent', async () => {
    const { dms, request, dmsTo, store, messenger } = setup();
    // Kept by the store in real time (a request of NOW's day would be past its retention).
    const filed = { ...request('CR-00000000A2'), expiresAt: Date.now() + 3_600_000 };
    await store.create(filed);
    // Rejected in the channel while the DMs go out, drawn as it was filed.
    const dm = messenger.dm.bind(messenger);
    messenger.dm = async (userId, message) => {
      const posted = await dm(userId, message);
      await store.transition(filed.id, {
        from: ['pending'],
        to: 'rejected',
        actorId: 'U0DBA',
        now: Date.now(),
        audit: { action: 'rejected', summary: 'x' },
      });
      return posted;
    };
    await dms.filed(filed);
    const copies = await store.copiesOf(filed.id);
    expect(copies.map((c) => c.channelId).sort()).toStrictEqual(['U0ANA', 'U0DBA']);
    expect(dmsTo('U0DBA')).toHaveLength(1);
    const updates = messenger.sent.filter((s) => s.kind === 'update');
    expect(updates.map((u) => u.ts).sort()).toStrictEqual(copies.map((c) => c.ts).sort());
    for (const update of updates) expect(JSON.stringify(update.message.blocks)).toContain('Rejected');
  });

  it(`never sends one person more than ${MAX_DMS_PER_PERSON_HOUR} in an hour, and says so in the log`, async () => {
    const { dms, request, dmsTo, logs } = setup();
    for (let i = 0; i < MAX_DMS_PER_PERSON_HOUR + 5; i++) await dms.filed(request(`CR-${String(i).padStart(10, '0')}`));
    expect(dmsTo('U0DBA')).toHaveLength(MAX_DMS_PER_PERSON_HOUR);
    expect(logs.filter((line) => line.includes('U0DBA had'))).toHaveLength(5);
  });
});
