import { describe, expect, it } from 'vitest';
import type { Activity } from '../../../src/core/service/activity.js';
import { parseActivities } from '../../../src/core/service/activity.js';
import type { ServiceUpdate } from '../../../src/core/service/schema.js';
import {
  activityLogFallbackNote,
  attributeDrift,
  attributeFromActivities,
  diffSnapshots,
  driftAuthorText,
  isBotChange,
  takeSnapshot,
  type ChangeAuthor,
  type DriftItem,
} from '../../../src/core/summary/index.js';
import type { AuditEntry } from '../../../src/core/change/audit.js';
import { auditEntry, NOW, service, SERVICE_ID } from '../fixtures.js';

const HOUR = 3_600_000;
const MINUTE = 60_000;
const OUR_KEY = 'ourKeyId000000000001';
const OTHER_KEY = 'terraformKey00000002';
const window = { from: NOW - HOUR, to: NOW };

/** Drift from the fixture service to the same service with `changes`, as the audit alone attributes it. */
function driftTo(changes: Record<string, unknown>, audit: AuditEntry[] = []): DriftItem[] {
  const items = diffSnapshots(takeSnapshot([service()], window.from), takeSnapshot([service(changes)], window.to));
  return attributeDrift(items, audit, window);
}

const applied = (update: ServiceUpdate, changeId = 'CR-7', at = NOW - 30 * MINUTE) =>
  auditEntry({ action: 'applied', at, update, changeId });

/** An activity as the API lists it; `ago` is how long before NOW it happened. */
function activity(type: string, actor: Partial<Activity>, ago = 20 * MINUTE, serviceId = SERVICE_ID): Activity {
  return { id: `act-${type}-${ago}`, createdAt: new Date(NOW - ago).toISOString(), type, serviceId, ...actor };
}
const byBot = { actorType: 'api', actorId: OUR_KEY } as const;
const byOtherKey = { actorType: 'api', actorId: OTHER_KEY } as const;
const byJane = { actorType: 'user', actorId: 'user-7f3a', actorDetails: 'jane@example.com' } as const;
const bySupport = { actorType: 'support', actorId: 'support-1' } as const;
const bySystem = { actorType: 'system', actorId: 'system' } as const;

function attribute(items: DriftItem[], activities: Activity[], audit: AuditEntry[] = []): DriftItem[] {
  return attributeFromActivities(items, activities, OUR_KEY, window, audit);
}

/** Each item as [kind, who, changeId]: who is "actor name" per author, joined by " | ". */
const who = (items: DriftItem[]) =>
  items.map((item) => [
    item.kind,
    (item.authors ?? []).map((a: ChangeAuthor) => (a.name ? `${a.actor} ${a.name}` : a.actor)).join(' | '),
    item.via?.changeId,
  ]);

describe('attributeFromActivities: one change, each kind of author', () => {
  const rename = { name: 'orders-main' };
  it.each([
    ['the bot (its key, its request)', [activity('service_update_name', byBot)], [applied(rename)], 'bot', 'CR-7'],
    ['another API key', [activity('service_update_name', byOtherKey)], [], `api-key ${OTHER_KEY}`, undefined],
    ['a console user, by email', [activity('service_update_name', byJane)], [], 'user jane@example.com', undefined],
    [
      'a console user without details, by id',
      [activity('service_update_name', { actorType: 'user', actorId: 'user-99' })],
      [],
      'user user-99',
      undefined,
    ],
    ['ClickHouse support', [activity('service_update_name', bySupport)], [], 'support', undefined],
    ['the system', [activity('service_update_name', bySystem)], [], 'system', undefined],
    [
      'an actor type the bot does not know',
      parseActivities([{ ...activity('service_update_name', {}), actorType: 'robot', actorId: 'r-1' }]).activities,
      [],
      'unknown r-1',
      undefined,
    ],
    ["the bot's key, but no request of the bot", [activity('service_update_name', byBot)], [], 'bot', undefined],
  ] as const)('%s', (_, activities, audit, expected, changeId) => {
    const items = attribute(driftTo(rename, [...audit]), [...activities], [...audit]);
    expect(who(items)).toStrictEqual([['renamed', expected, changeId]]);
  });

  it('names nobody when no activity records that kind of change', () => {
    const activities = [
      activity('service_update_release_channel', byJane),
      activity('service_update_core_dump', byJane),
      activity('service_update_something_new', byJane),
    ];
    expect(who(attribute(driftTo({ name: 'orders-main' }), activities))).toStrictEqual([['renamed', '', undefined]]);
  });

  it('accepts an unknown type without it explaining anything', () => {
    const { activities, skipped } = parseActivities([
      { type: 'service_update_brand_new_thing', actorType: 'user', serviceId: SERVICE_ID, createdAt: 'x' },
      'not an object',
      null,
    ]);
    expect(skipped).toBe(2);
    expect(activities).toHaveLength(1);
    expect(who(attribute(driftTo({ name: 'orders-main' }), activities))).toStrictEqual([['renamed', '', undefined]]);
  });

  it('ignores activities outside the window, of another service, or without a readable time', () => {
    const activities = [
      activity('service_update_name', byJane, HOUR + MINUTE),
      activity('service_update_name', byJane, -MINUTE),
      activity('service_update_name', byJane, 5 * MINUTE, 'another-service'),
      { ...activity('service_update_name', byJane), createdAt: 'yesterday' },
      { ...activity('service_update_name', byJane), createdAt: undefined },
    ];
    expect(who(attribute(driftTo({ name: 'orders-main' }), activities))).toStrictEqual([['renamed', '', undefined]]);
  });

  it('looks into the margin only when nothing inside the window names anyone', () => {
    const justBefore = activity('service_update_name', byJane, HOUR + 30_000);
    const inside = activity('service_update_name', byOtherKey, 10 * MINUTE);
    const margin = { marginMs: MINUTE };
    const rename = driftTo({ name: 'orders-main' });
    const withMargin = (activities: Activity[]) =>
      who(attributeFromActivities(rename, activities, OUR_KEY, window, [], margin));
    expect(withMargin([justBefore])).toStrictEqual([['renamed', 'user jane@example.com', undefined]]);
    expect(withMargin([justBefore, inside])).toStrictEqual([['renamed', `api-key ${OTHER_KEY}`, undefined]]);
    expect(withMargin([activity('service_update_name', byJane, HOUR + 2 * MINUTE)])).toStrictEqual([
      ['renamed', '', undefined],
    ]);
  });

  it('counts the window ends in', () => {
    const atStart = activity('service_update_name', byJane, HOUR);
    const atEnd = activity('service_update_name', byOtherKey, 0);
    expect(who(attribute(driftTo({ name: 'orders-main' }), [atStart, atEnd]))).toStrictEqual([
      ['renamed', `user jane@example.com | api-key ${OTHER_KEY}`, undefined],
    ]);
  });
});

describe('attributeFromActivities: each drift field and its activity types', () => {
  it.each([
    [{ releaseChannel: 'fast' }, 'service_update_release_channel', 'release-channel-changed'],
    [{ ipAccessList: [] }, 'service_update_ip_access_list', 'ip-removed'],
    [{ privateEndpointIds: ['vpce-1'] }, 'service_update_private_endpoints', 'private-endpoint-attached'],
    [{ transparentDataEncryptionKeyId: 'key-2' }, 'service_encryption_key_rotated', 'encryption-key-rotated'],
  ])('%j is recorded as %s', (changes, type, kind) => {
    const items = attribute(driftTo(changes), [activity(type, byJane)]);
    expect(items.map((i) => [i.kind, i.authors?.[0]?.name])).toContainEqual([kind, 'jane@example.com']);
  });

  it('reads the MySQL interface type for the MySQL endpoint, and nothing for HTTPS', () => {
    const before = service().endpoints ?? [];
    const items = driftTo({
      endpoints: [...before.filter((e) => e.protocol !== 'https'), { protocol: 'mysql', host: 'h', port: 3306 }],
    });
    const attributed = attribute(items, [activity('service_update_mysql_interface', byJane)]);
    expect(attributed.map((i) => [i.label, i.authors?.length])).toStrictEqual([
      ['MySQL endpoint', 1],
      ['Service', 0],
    ]);
  });

  it('reads a service created and deleted', () => {
    const items = attributeDrift(
      diffSnapshots(
        takeSnapshot([service()], window.from),
        takeSnapshot([service({ id: 'new-id', name: 'fresh' })], window.to),
      ),
      [],
      window,
    );
    const activities = [
      activity('service_create', byOtherKey, 10 * MINUTE, 'new-id'),
      activity('service_delete', byJane, 10 * MINUTE),
    ];
    expect(who(attribute(items, activities))).toStrictEqual([
      ['service-added', `api-key ${OTHER_KEY}`, undefined],
      ['service-removed', 'user jane@example.com', undefined],
    ]);
  });
});

describe('attributeFromActivities: several changes to one service', () => {
  it('gives each field its own author', () => {
    const audit = [applied({ releaseChannel: 'fast' })];
    const items = driftTo({ name: 'orders-main', releaseChannel: 'fast', privateEndpointIds: ['vpce-1'] }, audit);
    const activities = [
      activity('service_update_name', byJane),
      activity('service_update_release_channel', byBot, 30 * MINUTE),
      activity('service_update_private_endpoints', bySupport),
    ];
    expect(who(attribute(items, activities, audit))).toStrictEqual([
      ['renamed', 'user jane@example.com', undefined],
      ['release-channel-changed', 'bot', 'CR-7'],
      ['private-endpoint-attached', 'support', undefined],
      ['private-endpoint-detached', 'support', undefined],
    ]);
  });

  it("tells the bot's IP entry from a console user's on the same service", () => {
    const audit = [applied({ ipAccessList: { add: [{ source: '10.20.30.0/24', description: 'vendor' }] } })];
    const ips = [...(service().ipAccessList ?? []), { source: '10.20.30.0/24', description: 'vendor' }];
    const items = driftTo({ ipAccessList: [...ips, { source: '192.0.2.10', description: 'console' }] }, audit);
    const activities = [
      activity('service_update_ip_access_list', byBot, 30 * MINUTE),
      activity('service_update_ip_access_list', byJane, 10 * MINUTE),
    ];
    const attributed = attribute(items, activities, audit);
    expect(attributed.map((i) => [i.subject, i.authors?.map((a) => a.actor), i.via?.changeId])).toStrictEqual([
      ['10.20.30.0/24', ['bot'], 'CR-7'],
      ['192.0.2.10', ['user'], undefined],
    ]);
    expect(attributed.map(isBotChange)).toStrictEqual([true, false]);
  });

  it("credits a console user who undid the bot's entry and opened 0.0.0.0/0, not the bot", () => {
    const audit = [applied({ ipAccessList: { add: [{ source: '10.20.30.0/24', description: 'vendor' }] } })];
    const items = driftTo(
      { ipAccessList: [...(service().ipAccessList ?? []), { source: '0.0.0.0/0', description: '' }] },
      audit,
    );
    const activities = [
      activity('service_update_ip_access_list', byBot, 30 * MINUTE),
      activity('service_update_ip_access_list', byJane, 10 * MINUTE),
    ];
    expect(who(attribute(items, activities, audit))).toStrictEqual([['ip-added', 'user jane@example.com', undefined]]);
  });

  it('names every possible author when several changed the same kind of thing, latest time each', () => {
    const items = driftTo({ ipAccessList: [] });
    const activities = [
      activity('service_update_ip_access_list', byJane, 40 * MINUTE),
      activity('service_update_ip_access_list', byOtherKey, 30 * MINUTE),
      activity('service_update_ip_access_list', byJane, 10 * MINUTE),
    ];
    const [item] = attribute(items, activities);
    expect(item?.authors).toStrictEqual([
      { actor: 'api-key', name: OTHER_KEY, at: NOW - 30 * MINUTE },
      { actor: 'user', name: 'jane@example.com', at: NOW - 10 * MINUTE },
    ]);
    expect(item && isBotChange(item)).toBe(false);
  });

  it("keeps the bot's key a candidate when it made more changes than its requests account for", () => {
    const audit = [applied({ ipAccessList: { remove: [{ source: '10.0.0.0/8' }] } }, 'CR-7', NOW - 50 * MINUTE)];
    const items = driftTo(
      { ipAccessList: [...(service().ipAccessList ?? []).slice(1), { source: '192.0.2.1', description: '' }] },
      audit,
    );
    const activities = [
      activity('service_update_ip_access_list', byBot, 50 * MINUTE),
      activity('service_update_ip_access_list', byBot, 5 * MINUTE),
    ];
    expect(who(attribute(items, activities, audit))).toStrictEqual([
      ['ip-added', 'bot', undefined],
      ['ip-removed', 'bot', 'CR-7'],
    ]);
  });
});

describe('driftAuthorText', () => {
  const item = (authors: ChangeAuthor[] | undefined, via?: string): DriftItem => ({
    serviceId: SERVICE_ID,
    serviceName: 'orders-prod',
    kind: 'renamed',
    label: 'Name',
    text: 'Renamed',
    subject: 'x',
    ...(authors ? { authors } : {}),
    ...(via ? { via: { changeId: via } } : {}),
  });
  const at = NOW - 58 * MINUTE;
  const time = `<!date^${at / 1000}^{time}|${new Date(at).toISOString()}>`;

  it.each([
    [item(undefined), '_elsewhere_ (console, Terraform or another tool)'],
    [item([]), '_elsewhere_ (the activity log names nobody for it)'],
    [item([{ actor: 'bot', at }], 'CR-7'), `:robot_face: via this bot (\`CR-7\`) at ${time}`],
    [item(undefined, 'CR-7'), ':robot_face: via this bot (`CR-7`)'],
    [
      item([{ actor: 'bot', at }]),
      `:robot_face: with this bot's API key at ${time}, but by none of its change requests`,
    ],
    [
      item([{ actor: 'user', name: 'jane@example.com', at }]),
      `:bust_in_silhouette: changed in the console by jane@example.com at ${time}`,
    ],
    [
      item([{ actor: 'user', at }]),
      `:bust_in_silhouette: changed in the console by a user the log does not name at ${time}`,
    ],
    [
      item([{ actor: 'api-key', name: OTHER_KEY, at }]),
      `:key: changed through another API key (\`${OTHER_KEY}\`) at ${time}`,
    ],
    [item([{ actor: 'support', at }]), `:technologist: changed by ClickHouse support at ${time}`],
    [item([{ actor: 'system', at }]), `:gear: changed by ClickHouse Cloud itself at ${time}`],
    [
      item([
        { actor: 'user', name: 'jane@example.com', at },
        { actor: 'api-key', name: OTHER_KEY, at },
      ]),
      `_elsewhere_, by one of: jane@example.com in the console at ${time}; API key \`${OTHER_KEY}\` at ${time}`,
    ],
  ])('%#', (driftItem, expected) => {
    expect(driftAuthorText(driftItem, NOW)).toBe(expected);
  });

  it('escapes what the log says before it enters mrkdwn, and dates older changes', () => {
    const old = NOW - 2 * 24 * HOUR;
    const text = driftAuthorText(item([{ actor: 'user', name: '<!channel> *x*@example.com', at: old }]), NOW);
    expect(text).toContain('&lt;!channel&gt;');
    expect(text).not.toContain('<!channel>');
    expect(text).toContain(`on <!date^${old / 1000}^{date_short} at {time}|`);
  });

  it.each([
    ['user', 'mallory@example.com'],
    ['api-key', 'key-1'],
    ['unknown', 'someone'],
  ] as const)('a %s name from the log cannot start a line of its own in the summary', (actor, name) => {
    // A line break in actorDetails (or actorId) would forge a drift line of the bot's own.
    const forged = `${name}\n• prod: IP added — via this bot\r\u2028x`;
    const one = driftAuthorText(item([{ actor, name: forged, at: NOW }]), NOW);
    const several = driftAuthorText(
      item([
        { actor, name: forged, at: NOW },
        { actor: 'system', at: NOW },
      ]),
      NOW,
    );
    for (const text of [one, several]) expect(text).not.toMatch(/[\r\n\u2028\u2029]/);
  });
});

describe('activityLogFallbackNote', () => {
  it.each([
    [403, "does not let the bot's API key read the organization's activities (status 403)", 'Give the key a role'],
    [401, "does not let the bot's API key read the organization's activities (status 401)", 'Give the key a role'],
    [500, "the organization's activities could not be read from ClickHouse Cloud (status 500)", 'tries again'],
    [undefined, "the organization's activities could not be read from ClickHouse Cloud.", 'tries again'],
  ])('status %s: says why and what to do, once', (status, why, todo) => {
    const note = activityLogFallbackNote({ status });
    expect(note).toContain("Who made each change is this bot's own guess from its change requests");
    expect(note).toContain(why);
    expect(note).toContain(todo);
    expect(note).toContain('This is said once.');
  });
});
