/**
 * "The requester or someone who may approve it" (Cancel before its time, Revert now, Extend,
 * Undo): a rule that asks for no approval names nobody who may approve, so it must not open the
 * request to anyone in the channel (with no rule asking for one, the default's approvers count).
 */
import { describe, expect, it } from 'vitest';
import { ApproverPolicy } from '../../src/approval/approvers.js';
import type { Requirement } from '../../src/core/policy/types.js';
import { buildChangeRequest } from '../store/fixtures.js';
import { RecordingMessenger } from '../support/recording-messenger.js';

const noApproval: Requirement = { rule: 'tags-only', approvals: 0, approvers: [], reasons: ['changes tags'] };
const dbas: Requirement = { rule: 'prod', approvals: 1, approvers: ['U-dba'], reasons: ['env=prod'] };

function policy() {
  return new ApproverPolicy({ approvers: ['U-dba'], allowSelfApproval: false, messenger: new RecordingMessenger() });
}

describe('the requester or someone who may approve it', () => {
  it('a scheduled change matched by a rule asking for no approval is not cancelled by just anyone', async () => {
    const request = buildChangeRequest({ status: 'scheduled', requirements: [noApproval, dbas] });
    const verdict = await policy().check('cancel', 'U-outsider', request);
    expect(verdict.allowed).toBe(false);
    expect(await policy().check('cancel', 'U-dba', request)).toMatchObject({ allowed: true });
    expect(await policy().check('cancel', 'U-requester', request)).toMatchObject({ allowed: true });
  });

  it('an auto-approved scheduled change is cancelled by its requester or the default approvers, nobody else', async () => {
    const request = buildChangeRequest({ status: 'scheduled', requirements: [noApproval] });
    const verdict = await policy().check('cancel', 'U-outsider', request);
    expect(verdict).toMatchObject({ allowed: false });
    expect(verdict.allowed ? '' : verdict.reason).toContain('or someone who may approve it (U-dba)');
    expect(await policy().check('cancel', 'U-dba', request)).toMatchObject({ allowed: true });
  });

  it('Revert now, Extend and Undo are not opened to anyone by a rule asking for no approval', async () => {
    const request = buildChangeRequest({ status: 'applied', requirements: [noApproval, dbas] });
    expect(await policy().mayAct('U-outsider', request)).toMatchObject({ allowed: false });
    expect(await policy().mayAct('U-dba', request)).toMatchObject({ allowed: true });
  });
});
