/** Keys in summaries, the pure part: the keys line, the snapshot's keys section, key drift and who made it. */
import { describe, expect, it } from 'vitest';
import type { ApiKey } from '../../../src/core/access/api-key.js';
import type { Activity } from '../../../src/core/service/activity.js';
import type { AuditEntry } from '../../../src/core/change/audit.js';
import {
  attributeKeyDrift,
  diffKeys,
  explainKeyDrift,
  keyDriftLine,
  keysHeadline,
  keysOverview,
  keysSection,
  parseSnapshot,
  takeSnapshot,
  type KeyDriftItem,
} from '../../../src/core/summary/index.js';

const NOW = Date.parse('2026-11-28T12:00:00Z');
const DAY = 86_400_000;
const ADMIN = { roleId: 'r-admin', roleName: 'Admin', roleType: 'system' };
const DEV = { roleId: 'r-dev', roleName: 'Developer', roleType: 'system' };

function key(id: string, rest: Partial<ApiKey> = {}): ApiKey {
  return {
    id,
    name: id,
    state: 'enabled',
    keySuffix: id.slice(-4),
    createdAt: new Date(NOW - 10 * DAY).toISOString(),
    expireAt: new Date(NOW + 10 * DAY).toISOString(),
    usedAt: new Date(NOW - DAY).toISOString(),
    assignedRoles: [DEV],
    ...rest,
  };
}

describe('the keys line', () => {
  it('counts enabled keys that never expire, went unused for 90 days or hold Admin; disabled ones are not flagged', () => {
    const keys = [
      key('own-0001', { assignedRoles: [ADMIN] }),
      key('idle-0002', { usedAt: new Date(NOW - 91 * DAY).toISOString() }),
      key('forever-03', { expireAt: null }),
      key('off-0004', { state: 'disabled', expireAt: null, assignedRoles: [ADMIN] }),
      key('fine-0005'),
    ];
    const overview = keysOverview(keys, 'own-0001', NOW);
    expect([overview.total, overview.neverExpires, overview.unused, overview.admin]).toStrictEqual([5, 1, 1, 1]);
    expect(overview.flagged.map((f) => f.key.id)).toStrictEqual(['forever-03', 'idle-0002', 'own-0001']);
    expect(keysHeadline({ keys, ownKeyId: 'own-0001' }, NOW)).toBe(
      '5 keys: :warning: 1 never expiring · 1 unused 90 days · 1 admin',
    );
    expect(keysHeadline({ keys: [key('fine-0005')], ownKeyId: 'x' }, NOW)).toBe('1 key, none flagged');
    expect(keysHeadline({ unread: { status: 502 } }, NOW)).toContain('not read this time (status 502)');
    expect(keysHeadline(undefined, NOW)).toBeUndefined();
  });
});

describe("the snapshot's keys section", () => {
  it('reads back a snapshot stored before keys had a section, and drops a broken section rather than the snapshot', () => {
    const old = JSON.stringify({ version: 1, takenAt: NOW, services: { s1: { name: 'a' } } });
    expect(parseSnapshot(old)?.keys).toBeUndefined();
    const broken = JSON.stringify({ version: 1, takenAt: NOW, services: {}, keys: { takenAt: 'soon', items: 3 } });
    expect(parseSnapshot(broken)).toMatchObject({ takenAt: NOW, services: {} });
    expect(parseSnapshot(broken)?.keys).toBeUndefined();
    const taken = takeSnapshot([], NOW, keysSection([key('k-0001', { assignedRoles: [DEV, ADMIN] })], NOW));
    const back = parseSnapshot(JSON.stringify(taken));
    expect(back?.keys?.items['k-0001']).toStrictEqual({
      name: 'k-0001',
      suffix: '0001',
      state: 'enabled',
      expireAt: new Date(NOW + 10 * DAY).toISOString(),
      roles: ['Admin', 'Developer'],
    });
  });
});

describe('key drift', () => {
  const before = keysSection([key('a-0001'), key('b-0002', { expireAt: null }), key('gone-0003')], NOW - DAY);
  const after = keysSection(
    [
      key('a-0001', { state: 'disabled', name: 'a-renamed', assignedRoles: [ADMIN] }),
      key('b-0002', { expireAt: '2027-01-01T00:00:00Z' }),
      key('new-0004'),
    ],
    NOW,
  );

  it('finds each kind of change, a key created and one deleted', () => {
    expect(diffKeys(before, after).map((item) => [item.keyName, item.kind, item.text])).toStrictEqual([
      ['a-renamed', 'key-disabled', 'Disabled'],
      ['a-renamed', 'key-renamed', 'Renamed: a-0001 → a-renamed'],
      ['a-renamed', 'key-roles', 'Roles: Developer → Admin'],
      ['b-0002', 'key-expiry', 'Expiry: never → 2027-01-01 00:00 UTC'],
      ['gone-0003', 'key-removed', 'Key deleted'],
      ['new-0004', 'key-added', 'Key created (enabled)'],
    ]);
    expect(diffKeys(after, after)).toStrictEqual([]);
  });

  it('names the author from the activities naming that key with that kind of update, and nobody else', () => {
    const window = { from: NOW - DAY, to: NOW };
    const at = new Date(NOW - 3_600_000).toISOString();
    const activity = (targetKeyId: string, keyUpdateType: string, actor: Partial<Activity>): Activity => ({
      type: 'openapi_key_update',
      createdAt: at,
      targetKeyId,
      keyUpdateType,
      ...actor,
    });
    const activities: Activity[] = [
      activity('a-0001', 'state-changed', { actorType: 'user', actorId: 'u1', actorDetails: 'jane@example.com' }),
      // Another key's state, and this key's name: neither disabled a-0001.
      activity('b-0002', 'state-changed', { actorType: 'user', actorDetails: 'mallory@example.com' }),
      activity('a-0001', 'name-changed', { actorType: 'api', actorId: 'bot-key' }),
      activity('b-0002', 'date-changed', { actorType: 'api', actorId: 'other-key' }),
      { type: 'key_delete', createdAt: at, targetKeyId: 'gone-0003', actorType: 'support' },
    ];
    const items = attributeKeyDrift(diffKeys(before, after), activities, 'bot-key', window);
    const authors = (kind: string) => items.find((item) => item.kind === kind)?.authors;
    expect(authors('key-disabled')).toStrictEqual([{ actor: 'user', name: 'jane@example.com', at: Date.parse(at) }]);
    expect(authors('key-renamed')).toStrictEqual([{ actor: 'bot', at: Date.parse(at) }]);
    expect(authors('key-expiry')).toStrictEqual([{ actor: 'api-key', name: 'other-key', at: Date.parse(at) }]);
    expect(authors('key-removed')).toStrictEqual([{ actor: 'support', at: Date.parse(at) }]);
    expect(authors('key-roles')).toStrictEqual([]);
    // Outside the window, only within the margin, and only when nothing inside names anyone.
    const late = [{ ...activities[0], createdAt: new Date(NOW + 30_000).toISOString() }];
    const [disabled] = diffKeys(before, after);
    expect(attributeKeyDrift([disabled!], late, 'bot-key', window)[0]?.authors).toStrictEqual([]);
    expect(attributeKeyDrift([disabled!], late, 'bot-key', window, 60_000)[0]?.authors).toHaveLength(1);
  });

  it("credits the bot's applied request of that key, within the window, and keeps only the bot as author", () => {
    const window = { from: NOW - DAY, to: NOW };
    const entry = (serviceId: string, at: number) =>
      ({ action: 'applied', at, changeId: `CR-${serviceId}`, serviceId }) as unknown as AuditEntry;
    const audit = [entry('key:a-0001', NOW - 10), entry('key:b-0002', NOW - 2 * DAY), entry('svc', NOW - 5)];
    const explained = explainKeyDrift(diffKeys(before, after), audit, window);
    expect(explained.filter((item) => item.via).map((item) => [item.keyId, item.kind])).toStrictEqual([
      ['a-0001', 'key-disabled'],
    ]);
    const at = new Date(NOW - 10).toISOString();
    const activities: Activity[] = [
      {
        type: 'openapi_key_update',
        createdAt: at,
        targetKeyId: 'a-0001',
        keyUpdateType: 'state-changed',
        actorType: 'api',
        actorId: 'bot-key',
      },
      {
        type: 'openapi_key_update',
        createdAt: at,
        targetKeyId: 'a-0001',
        keyUpdateType: 'state-changed',
        actorType: 'user',
        actorDetails: 'x@example.com',
      },
    ];
    const [disabled] = attributeKeyDrift(explained, activities, 'bot-key', window);
    expect(disabled?.authors).toStrictEqual([{ actor: 'bot', at: NOW - 10 }]);
  });

  it('escapes a hostile key name and its author in the drift line, and shows four characters at most of the suffix', () => {
    const item: KeyDriftItem = {
      keyId: 'k',
      keyName: '*evil* <!channel> _x_',
      suffix: 'abcd<@U1>',
      kind: 'key-disabled',
      text: 'Disabled <!here>',
      authors: [{ actor: 'user', name: 'a\nb <!everyone>', at: NOW }],
    };
    const line = keyDriftLine(item, NOW);
    expect(line).not.toMatch(/<!channel>|<!here>|<!everyone>|<@U1>/);
    expect(line.split('\n')).toHaveLength(1);
    expect(line).toContain('(…@U1&gt;)');
  });
});
