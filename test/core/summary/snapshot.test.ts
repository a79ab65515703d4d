import { describe, expect, it } from 'vitest';
import { parseSnapshot, SnapshotSchema, takeSnapshot } from '../../../src/core/summary/index.js';
import { NOW, service, servicesNamed } from '../fixtures.js';

describe('takeSnapshot', () => {
  it('keeps what drift compares, in a stable order', () => {
    const record = service({
      endpoints: [
        { protocol: 'nativesecure', host: 'h', port: 9440 },
        { protocol: 'mysql', host: 'h', port: 3306 },
        { protocol: 'https', host: 'h', port: 8443, enabled: false },
      ],
      ipAccessList: [{ source: '203.0.113.7/32', description: 'vpn' }, { source: '10.0.0.0/8' }],
    });
    const snapshot = takeSnapshot([record], NOW);
    expect(snapshot.takenAt).toBe(NOW);
    expect(snapshot.services[record.id]).toStrictEqual({
      name: 'orders-prod',
      releaseChannel: 'default',
      endpoints: ['mysql', 'nativesecure'],
      ipAccessList: [
        ['10.0.0.0/8', ''],
        ['203.0.113.7/32', 'vpn'],
      ],
      privateEndpointIds: ['pe-attached'],
      tdeKeyId: 'key-1',
      state: 'running',
    });
  });

  it('leaves out what the record did not say, so it is not mistaken for "empty"', () => {
    const record = service({
      ipAccessList: undefined,
      endpoints: undefined,
      privateEndpointIds: undefined,
      transparentDataEncryptionKeyId: undefined,
      releaseChannel: undefined,
      state: undefined,
    });
    expect(takeSnapshot([record], NOW).services[record.id]).toStrictEqual({ name: 'orders-prod' });
  });

  it('keeps an explicitly empty IP access list as empty', () => {
    const record = service({ ipAccessList: [] });
    expect(takeSnapshot([record], NOW).services[record.id]?.ipAccessList).toStrictEqual([]);
  });
});

describe('stored snapshots', () => {
  it('survive a round trip through JSON and SnapshotSchema unchanged', () => {
    const snapshot = takeSnapshot([service(), service({ id: 'other', name: 'other', ipAccessList: [] })], NOW);
    const stored = JSON.stringify(snapshot);
    expect(SnapshotSchema.parse(JSON.parse(stored))).toStrictEqual(snapshot);
    expect(parseSnapshot(stored)).toStrictEqual(snapshot);
  });

  it('read as "no baseline" when missing, not JSON, or of another shape', () => {
    expect(parseSnapshot(undefined)).toBeUndefined();
    expect(parseSnapshot(null)).toBeUndefined();
    expect(parseSnapshot('{not json')).toBeUndefined();
    expect(parseSnapshot(JSON.stringify({ takenAt: NOW, services: {} }))).toBeUndefined();
    expect(parseSnapshot(JSON.stringify({ version: 1, takenAt: 'yesterday', services: {} }))).toBeUndefined();
  });

  it('stays small enough to keep one per schedule for a large organization', () => {
    const json = JSON.stringify(takeSnapshot(servicesNamed(1000), NOW));
    // About 200 bytes per service with the fixture's fields.
    expect(json.length).toBeLessThan(250_000);
  });
});
