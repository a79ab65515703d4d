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
  return { dms, request, dmsTo, logs };
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

  it(`never sends one person more than ${MAX_DMS_PER_PERSON_HOUR} in an hour, and says so in the log`, async () => {
    const { dms, request, dmsTo, logs } = setup();
    for (let i = 0; i < MAX_DMS_PER_PERSON_HOUR + 5; i++) await dms.filed(request(`CR-${String(i).padStart(10, '0')}`));
    expect(dmsTo('U0DBA')).toHaveLength(MAX_DMS_PER_PERSON_HOUR);
    expect(logs.filter((line) => line.includes('U0DBA had'))).toHaveLength(5);
  });
});
