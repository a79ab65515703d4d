/** Requests stored before reasons, tickets and rejection reasons existed still load as they were. */
import { describe, expect, it } from 'vitest';
import {
  auditFromStreamEntry,
  auditToStreamArgs,
  requestFromHash,
  requestToHashArgs,
} from '../../src/store/redis/codec.js';
import { requestedAuditEntry } from '../../src/store/rules.js';
import { buildChangeRequest } from './fixtures.js';

function hashOf(args: string[]): Record<string, string> {
  const hash: Record<string, string> = {};
  for (let i = 0; i + 1 < args.length; i += 2) hash[args[i] as string] = args[i + 1] as string;
  return hash;
}

describe('codec: reason, ticket and rejectedBecause', () => {
  it('round-trips them', () => {
    const request = {
      ...buildChangeRequest({ reason: 'why', ticket: 'OPS-1' }),
      status: 'rejected' as const,
      outcome: { rejectedBecause: 'because not' },
    };
    expect(requestFromHash(hashOf(requestToHashArgs(request)))).toStrictEqual(request);
  });

  it('reads a request written before they existed, without them', () => {
    const old = buildChangeRequest();
    const hash = hashOf(requestToHashArgs(old));
    // As an older bot wrote it: no reason or ticket keys in data, an outcome without rejectedBecause.
    expect(JSON.parse(hash.data ?? '{}')).not.toHaveProperty('reason');
    hash.outcome = JSON.stringify({ message: 'Rejected.' });
    const read = requestFromHash(hash);
    expect(read).not.toHaveProperty('reason');
    expect(read).not.toHaveProperty('ticket');
    expect(read?.outcome).toStrictEqual({ message: 'Rejected.' });
  });
});

describe('codec: organization', () => {
  it('round-trips a request’s organization and its requested audit entry’s, and reads older ones without it', () => {
    const request = buildChangeRequest({ organization: 'billing' });
    expect(requestFromHash(hashOf(requestToHashArgs(request)))).toStrictEqual(request);
    expect(requestFromHash(hashOf(requestToHashArgs(buildChangeRequest())))).not.toHaveProperty('organization');
    const entry = requestedAuditEntry(request);
    expect(entry.organization).toBe('billing');
    expect(auditFromStreamEntry('1-0', auditToStreamArgs(entry))).toStrictEqual({ id: '1-0', ...entry });
  });
});
