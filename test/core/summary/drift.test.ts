import { describe, expect, it } from 'vitest';
import type { ServiceRecord, ServiceUpdate } from '../../../src/core/service/schema.js';
import {
  ACTIVITY_TYPES_OF,
  attributeDrift,
  diffSnapshots,
  takeSnapshot,
  type DriftItem,
} from '../../../src/core/summary/index.js';
import { auditEntry, NOW, service, SERVICE_ID } from '../fixtures.js';

const HOUR = 3_600_000;
const before = service();

/** Drift from the fixture service to the same service with `changes`. */
function driftTo(changes: Record<string, unknown>): DriftItem[] {
  return diff([before], [service(changes)]);
}

function diff(previous: ServiceRecord[], current: ServiceRecord[]): DriftItem[] {
  return diffSnapshots(takeSnapshot(previous, NOW - HOUR), takeSnapshot(current, NOW));
}

const brief = (items: DriftItem[]) => items.map(({ kind, label, text }) => ({ kind, label, text }));

describe('diffSnapshots', () => {
  it('finds nothing when nothing changed, even if state and memory moved', () => {
    expect(driftTo({})).toStrictEqual([]);
    expect(driftTo({ state: 'idle', minTotalMemoryGb: 8, numReplicas: 1 })).toStrictEqual([]);
  });

  it('reports a service added and one removed, by name', () => {
    const items = diff([before], [service({ id: 'new-id', name: 'fresh' })]);
    expect(
      items.map(({ serviceId, serviceName, kind, label }) => ({ serviceId, serviceName, kind, label })),
    ).toStrictEqual([
      { serviceId: 'new-id', serviceName: 'fresh', kind: 'service-added', label: 'Service' },
      { serviceId: SERVICE_ID, serviceName: 'orders-prod', kind: 'service-removed', label: 'Service' },
    ]);
  });

  it('reports a rename under the new name', () => {
    const items = driftTo({ name: 'orders-main' });
    expect(brief(items)).toStrictEqual([
      { kind: 'renamed', label: 'Name', text: 'Renamed: orders-prod → orders-main' },
    ]);
    expect(items[0]?.serviceName).toBe('orders-main');
  });

  it('reports IP entries added and removed, with their descriptions', () => {
    const items = driftTo({
      ipAccessList: [
        { source: '10.0.0.0/8', description: 'office' },
        { source: '0.0.0.0/0', description: 'debug' },
      ],
    });
    expect(brief(items)).toStrictEqual([
      { kind: 'ip-added', label: 'IP access', text: 'IP access: + 0.0.0.0/0 (debug)' },
      { kind: 'ip-removed', label: 'IP access', text: 'IP access: − 203.0.113.7/32 (vpn)' },
    ]);
  });

  it('reports a changed IP description as one change, not a removal and an addition', () => {
    const items = driftTo({
      ipAccessList: [
        { source: '10.0.0.0/8', description: 'old office' },
        { source: '203.0.113.7/32', description: 'vpn' },
      ],
    });
    expect(brief(items)).toStrictEqual([
      {
        kind: 'ip-description-changed',
        label: 'IP access',
        text: 'IP access entry 10.0.0.0/8: description "office" → "old office"',
      },
    ]);
  });

  it('does not read an IP list missing from a record as every entry removed', () => {
    expect(driftTo({ ipAccessList: undefined })).toStrictEqual([]);
    expect(driftTo({ ipAccessList: 'garbled' })).toStrictEqual([]);
  });

  it('reports the MySQL endpoint switched on and off', () => {
    const mysql = { protocol: 'mysql', host: 'h', port: 3306 };
    const withMysql = service({ endpoints: [...(before.endpoints ?? []), mysql] });
    expect(brief(diff([before], [withMysql]))).toStrictEqual([
      { kind: 'endpoint-enabled', label: 'MySQL endpoint', text: 'MySQL endpoint switched on' },
    ]);
    expect(brief(diff([withMysql], [before]))).toStrictEqual([
      { kind: 'endpoint-disabled', label: 'MySQL endpoint', text: 'MySQL endpoint switched off' },
    ]);
    const disabled = service({ endpoints: [...(before.endpoints ?? []), { ...mysql, enabled: false }] });
    expect(brief(diff([withMysql], [disabled]))).toStrictEqual([
      { kind: 'endpoint-disabled', label: 'MySQL endpoint', text: 'MySQL endpoint switched off' },
    ]);
  });

  it('reports other endpoints switched, under "Service" since the bot cannot switch them', () => {
    const items = driftTo({ endpoints: [{ protocol: 'https', host: 'h', port: 8443 }] });
    expect(brief(items)).toStrictEqual([
      { kind: 'endpoint-disabled', label: 'Service', text: 'Native secure endpoint switched off' },
    ]);
  });

  it('reports a release channel change', () => {
    expect(brief(driftTo({ releaseChannel: 'fast' }))).toStrictEqual([
      { kind: 'release-channel-changed', label: 'Release channel', text: 'Release channel: default → fast' },
    ]);
  });

  it('reports private endpoints attached and detached', () => {
    expect(brief(driftTo({ privateEndpointIds: ['pe-free'] }))).toStrictEqual([
      { kind: 'private-endpoint-attached', label: 'Private endpoint', text: 'Private endpoint: + pe-free' },
      { kind: 'private-endpoint-detached', label: 'Private endpoint', text: 'Private endpoint: − pe-attached' },
    ]);
  });

  it('reports an encryption key rotation', () => {
    expect(brief(driftTo({ transparentDataEncryptionKeyId: 'key-2' }))).toStrictEqual([
      { kind: 'encryption-key-rotated', label: 'Encryption key', text: 'Encryption key rotated: key-1 → key-2' },
    ]);
  });

  it('lists changes by service name, each service once together', () => {
    const a = service({ id: 'id-a', name: 'alpha' });
    const z = service({ id: 'id-z', name: 'zulu' });
    const items = diff(
      [z, a],
      [
        service({ id: 'id-z', name: 'zulu', releaseChannel: 'fast' }),
        service({ id: 'id-a', name: 'alpha', releaseChannel: 'slow', transparentDataEncryptionKeyId: 'k9' }),
      ],
    );
    expect(items.map((i) => `${i.serviceName}:${i.kind}`)).toStrictEqual([
      'alpha:release-channel-changed',
      'alpha:encryption-key-rotated',
      'zulu:release-channel-changed',
    ]);
  });

  it('unchanged services among many produce no drift', () => {
    const many = Array.from({ length: 200 }, (_, i) => service({ id: `id-${i}`, name: `svc-${i}` }));
    const changed = many.map((s, i) => (i === 42 ? service({ id: s.id, name: 'svc-42-renamed' }) : s));
    expect(diff(many, changed).map((i) => i.serviceId)).toStrictEqual(['id-42']);
  });
});

describe('attributeDrift', () => {
  const window = { from: NOW - HOUR, to: NOW };
  const applied = (update: ServiceUpdate, overrides: Parameters<typeof auditEntry>[0] = {}) =>
    auditEntry({ action: 'applied', at: NOW - HOUR / 2, update, ...overrides });

  it('marks a change applied through the bot with its change request, and leaves others "elsewhere"', () => {
    const items = driftTo({ name: 'orders-main', releaseChannel: 'fast' });
    const attributed = attributeDrift(items, [applied({ name: 'orders-main' }, { changeId: 'CR-7' })], window);
    expect(attributed.map((i) => [i.kind, i.via])).toStrictEqual([
      ['renamed', { changeId: 'CR-7' }],
      ['release-channel-changed', undefined],
    ]);
  });

  it('ignores applied entries outside the window', () => {
    const items = driftTo({ name: 'orders-main' });
    const tooEarly = applied({ name: 'orders-main' }, { at: NOW - 2 * HOUR });
    const tooLate = applied({ name: 'orders-main' }, { at: NOW + 1 });
    expect(attributeDrift(items, [tooEarly, tooLate], window)[0]?.via).toBeUndefined();
  });

  it('needs the same field: an applied IP change does not explain a rename', () => {
    const items = driftTo({ name: 'orders-main' });
    expect(
      attributeDrift(items, [applied({ ipAccessList: { add: [{ source: '1.2.3.4/32' }] } })], window)[0]?.via,
    ).toBeUndefined();
  });

  it('needs the same value: a rename to another name does not explain this one', () => {
    const items = driftTo({ name: 'orders-main' });
    expect(attributeDrift(items, [applied({ name: 'orders-next' })], window)[0]?.via).toBeUndefined();
  });

  it('core dumps (a kind declared in one module): switched in the console is drift, by the bot is its request', () => {
    // A record that did not say before is no drift; one that said off is.
    expect(driftTo({ enableCoreDumps: true })).toStrictEqual([]);
    const items = diff([service({ enableCoreDumps: false })], [service({ enableCoreDumps: true })]);
    expect(brief(items)).toStrictEqual([
      { kind: 'core-dumps-switched', label: 'Core dumps', text: 'Core dumps switched on' },
    ]);
    expect(
      attributeDrift(items, [applied({ enableCoreDumps: true }, { changeId: 'CR-9' })], window)[0]?.via,
    ).toStrictEqual({
      changeId: 'CR-9',
    });
    expect(attributeDrift(items, [applied({ enableCoreDumps: false })], window)[0]?.via).toBeUndefined();
    expect(ACTIVITY_TYPES_OF['core-dumps-switched']).toStrictEqual(['service_update_core_dump']);
  });

  it('needs an applied entry of the same service', () => {
    const items = driftTo({ name: 'orders-main' });
    expect(
      attributeDrift(items, [applied({ name: 'orders-main' }, { serviceId: 'someone-else' })], window)[0]?.via,
    ).toBeUndefined();
  });

  it('needs the change to have been applied, not merely requested or approved', () => {
    const items = driftTo({ name: 'orders-main' });
    const entries = [
      auditEntry({ action: 'requested', at: NOW - 10, update: { name: 'orders-main' } }),
      auditEntry({ action: 'approved', at: NOW - 5, update: { name: 'orders-main' } }),
    ];
    expect(attributeDrift(items, entries, window)[0]?.via).toBeUndefined();
  });

  it('never credits the bot on the text of a summary line alone', () => {
    const items = driftTo({ name: 'orders-main' });
    expect(
      attributeDrift(
        items,
        [auditEntry({ action: 'applied', at: NOW - 10, summary: 'Name: orders-prod → orders-main' })],
        window,
      )[0]?.via,
    ).toBeUndefined();
  });

  it('never credits the bot with a service added or removed', () => {
    const items = diff([], [before]);
    expect(attributeDrift(items, [applied({ name: 'orders-prod' })], window)[0]?.via).toBeUndefined();
  });

  it('reads every part of a multi-field body', () => {
    const items = driftTo({
      releaseChannel: 'slow',
      ipAccessList: [...(before.ipAccessList ?? []), { source: '198.51.100.0/24' }],
    });
    const entry = applied(
      { releaseChannel: 'slow', ipAccessList: { add: [{ source: '198.51.100.0/24' }] } },
      { changeId: 'CR-9' },
    );
    expect(attributeDrift(items, [entry], window).map((i) => i.via)).toStrictEqual([
      { changeId: 'CR-9' },
      { changeId: 'CR-9' },
    ]);
  });

  it('tells a bot IP change from a console IP change on the same service', () => {
    const items = driftTo({
      ipAccessList: [...(before.ipAccessList ?? []), { source: '198.51.100.0/24' }, { source: '192.0.2.1/32' }],
    });
    const attributed = attributeDrift(
      items,
      [applied({ ipAccessList: { add: [{ source: '198.51.100.0/24' }] } }, { changeId: 'CR-1' })],
      window,
    );
    expect(attributed.map((i) => [i.text, i.via?.changeId])).toStrictEqual([
      ['IP access: + 192.0.2.1/32', undefined],
      ['IP access: + 198.51.100.0/24', 'CR-1'],
    ]);
  });

  it("credits a console change that removed the bot's entry and added 0.0.0.0/0 to nobody", () => {
    // Between two summaries the bot added 198.51.100.0/24; then the console removed it and opened 0.0.0.0/0.
    const items = driftTo({ ipAccessList: [...(before.ipAccessList ?? []), { source: '0.0.0.0/0' }] });
    const attributed = attributeDrift(
      items,
      [applied({ ipAccessList: { add: [{ source: '198.51.100.0/24' }] } }, { changeId: 'CR-5' })],
      window,
    );
    expect(attributed.map((i) => [i.text, i.via])).toStrictEqual([['IP access: + 0.0.0.0/0', undefined]]);
  });

  it('needs the description the request set', () => {
    const items = driftTo({
      ipAccessList: [...(before.ipAccessList ?? []), { source: '198.51.100.0/24', description: 'console' }],
    });
    expect(
      attributeDrift(
        items,
        [applied({ ipAccessList: { add: [{ source: '198.51.100.0/24', description: 'bot' }] } })],
        window,
      )[0]?.via,
    ).toBeUndefined();
  });

  it('reads remove + add of one source as the re-description it is', () => {
    const items = driftTo({
      ipAccessList: [
        { source: '10.0.0.0/8', description: 'hq' },
        { source: '203.0.113.7/32', description: 'vpn' },
      ],
    });
    const entry = applied(
      { ipAccessList: { remove: [{ source: '10.0.0.0/8' }], add: [{ source: '10.0.0.0/8', description: 'hq' }] } },
      { changeId: 'CR-6' },
    );
    expect(attributeDrift(items, [entry], window).map((i) => [i.kind, i.via?.changeId])).toStrictEqual([
      ['ip-description-changed', 'CR-6'],
    ]);
  });

  it('names the right request when two bot changes of the same kind hit one service', () => {
    const items = driftTo({ privateEndpointIds: ['pe-attached', 'pe-free', 'pe-third'] });
    const entries = [
      applied({ privateEndpointIds: { add: ['pe-third'] } }, { changeId: 'CR-3', at: NOW - 100 }),
      applied({ privateEndpointIds: { add: ['pe-free'] } }, { changeId: 'CR-2', at: NOW - 200 }),
    ];
    expect(attributeDrift(items, entries, window).map((i) => [i.text, i.via?.changeId])).toStrictEqual([
      ['Private endpoint: + pe-free', 'CR-2'],
      ['Private endpoint: + pe-third', 'CR-3'],
    ]);
  });

  it('still credits the bot when the API wrote the value differently than the request', () => {
    // The bot asked for 198.51.100.7; the API may store it as 198.51.100.7/32.
    const items = driftTo({ ipAccessList: [...(before.ipAccessList ?? []), { source: '198.51.100.7/32' }] });
    expect(
      attributeDrift(
        items,
        [applied({ ipAccessList: { add: [{ source: '198.51.100.7' }] } }, { changeId: 'CR-4' })],
        window,
      )[0]?.via,
    ).toStrictEqual({ changeId: 'CR-4' });
  });

  it('credits a MySQL switch, never an HTTPS one', () => {
    const items = driftTo({ endpoints: [{ protocol: 'mysql', host: 'h', port: 3306 }] });
    expect(
      attributeDrift(
        items,
        [applied({ endpoints: [{ protocol: 'mysql', enabled: true }] }, { changeId: 'CR-8' })],
        window,
      )
        .map((i) => [i.label, i.via?.changeId])
        .sort(),
    ).toStrictEqual([
      ['MySQL endpoint', 'CR-8'],
      ['Service', undefined],
      ['Service', undefined],
    ]);
  });
});
