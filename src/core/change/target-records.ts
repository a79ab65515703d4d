/**
 * A member or an API key as the record a change reads (core/access/target.ts): found by what a
 * person typed, read afresh by id, and named in sentences. The core's planning, stale check,
 * verification and Undo then treat it like any record.
 */
import type { ApiKey } from '../access/api-key.js';
import type { Member, Role } from '../access/member.js';
import { targetRecordId, type PlanTarget } from '../access/target.js';
import type { ServiceRecord } from '../service/schema.js';

export function memberRecord(member: Member, roles: Role[]): ServiceRecord {
  return {
    id: targetRecordId({ type: 'member', userId: member.userId }),
    name: member.email || member.name,
    organizationTarget: { type: 'member', member, roles },
  };
}

export function keyRecord(key: ApiKey, roles: Role[], ownKeyId: string): ServiceRecord {
  return {
    id: targetRecordId({ type: 'apiKey', keyId: key.id }),
    name: key.name,
    organizationTarget: { type: 'apiKey', key, roles, ownKeyId },
  };
}

/** The plan's target as stored, from the record it was planned on (none for a service). */
export function planTargetOf(record: ServiceRecord): PlanTarget | undefined {
  const target = record.organizationTarget;
  if (target?.type === 'member') return { type: 'member', userId: target.member.userId };
  if (target?.type === 'apiKey') return { type: 'apiKey', keyId: target.key.id };
  return undefined;
}

export type Found<T> = { ok: true; value: T } | { ok: false; text: string };

/** A member by email (any case), Slack-style `<mailto:…|…>` included, or by user id. */
export function findMember(members: readonly Member[], query: string): Found<Member> {
  const wanted = query
    .replace(/^<mailto:([^|>]+)(\|[^>]*)?>$/i, '$1')
    .trim()
    .toLowerCase();
  const found = members.find((m) => m.email.toLowerCase() === wanted || m.userId.toLowerCase() === wanted);
  if (found) return { ok: true, value: found };
  const near = members
    .filter(
      (m) => m.email.toLowerCase().includes(wanted.split('@')[0] ?? wanted) || m.name.toLowerCase().includes(wanted),
    )
    .slice(0, 5);
  const candidates = (near.length > 0 ? near : members.slice(0, 5)).map((m) => m.email);
  return {
    ok: false,
    text: `No member of the organization has the email ${query}. ${candidates.length > 0 ? `Members: ${candidates.join(', ')}.` : ''}`.trim(),
  };
}

/** A key by name, id, or `…` + its last four characters. */
export function findKey(keys: readonly ApiKey[], query: string): Found<ApiKey> {
  const wanted = query.trim();
  const suffix = /^(?:…|\.\.\.)(\w{4})$/.exec(wanted)?.[1];
  const matches = keys.filter((key) =>
    suffix !== undefined
      ? key.keySuffix === suffix
      : key.id === wanted || key.name.toLowerCase() === wanted.toLowerCase(),
  );
  const [only] = matches;
  if (only && matches.length === 1) return { ok: true, value: only };
  const names = keys.map((key) => `${key.name} (…${key.keySuffix ?? '????'})`);
  if (matches.length > 1)
    return {
      ok: false,
      text: `${matches.length} keys answer to ${wanted}: give its id or …last four. Keys: ${names.join(', ')}.`,
    };
  return { ok: false, text: `No API key is called ${wanted}. Keys: ${names.join(', ')}.` };
}
