/**
 * The simulator's backups, backup configuration, restore (POST …/services with backupId) and
 * delete, over real HTTP, against the official document's shapes and rules.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DEMO_IDS } from '../../src/simulator/seed.js';
import type { BackupRecord } from '../../src/simulator/backups.js';
import type { CloudSimulator } from '../../src/simulator/server.js';
import type { ServiceRecordLike } from '../../src/simulator/state.js';
import { call, expectError, expectSuccess, listPath, servicePath, startDemo, UUID_V4 } from './helpers.js';

const HOUR = 3_600_000;
/** A fixed moment: 2026-11-28 13:20 UTC. */
const NOON_ISH = Date.parse('2026-11-28T13:20:00Z');

let sim: CloudSimulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function start(at = NOON_ISH, transitionMs = 1_000): Promise<{ sim: CloudSimulator; clock: { at: number } }> {
  const clock = { at };
  sim = await startDemo({ now: () => clock.at, transitionMs });
  return { sim, clock };
}

const backupsOf = async (s: CloudSimulator, id: string) =>
  expectSuccess<BackupRecord[]>(await call(s, 'GET', `${servicePath(id)}/backups`));

describe('backups', () => {
  it('lists a daily full with incrementals between, newest first, within the retention, with the documented fields', async () => {
    const { sim: s } = await start();
    const backups = await backupsOf(s, DEMO_IDS.ordersProd);
    // Every 6 h, kept 48 h: 12:00, 06:00, 00:00 today, yesterday's four, and the day before's 18:00.
    expect(backups.map((b) => b.startedAt)).toStrictEqual(
      [0, -6, -12, -18, -24, -30, -36, -42].map((h) =>
        new Date(Date.parse('2026-11-28T12:00:00Z') + h * HOUR).toISOString(),
      ),
    );
    expect(backups.filter((b) => b.type === 'full').map((b) => b.startedAt.slice(11, 16))).toStrictEqual([
      '00:00',
      '00:00',
    ]);
    for (const backup of backups) {
      expect(backup.id).toMatch(UUID_V4);
      expect(backup.serviceId).toBe(DEMO_IDS.ordersProd);
      expect(['done', 'error', 'in_progress']).toContain(backup.status);
      if (backup.status !== 'in_progress')
        expect(Date.parse(backup.finishedAt ?? '')).toBeGreaterThan(Date.parse(backup.startedAt));
    }
    // The same answer twice: backups are a function of the configuration and the clock.
    expect(await backupsOf(s, DEMO_IDS.ordersProd)).toStrictEqual(backups);
    const one = backups[1];
    expect(
      expectSuccess(await call(s, 'GET', `${servicePath(DEMO_IDS.ordersProd)}/backups/${one?.id ?? ''}`)),
    ).toStrictEqual(one);
    expectError(
      await call(s, 'GET', `${servicePath(DEMO_IDS.ordersProd)}/backups/${DEMO_IDS.eventsProd}`),
      404,
      'NOT_FOUND',
    );
  });

  it('shows the newest backup in progress for its first minutes, with its seconds so far', async () => {
    const { sim: s } = await start(Date.parse('2026-11-28T12:02:00Z'));
    const [newest] = await backupsOf(s, DEMO_IDS.ordersProd);
    expect(newest).toMatchObject({ status: 'in_progress', durationInSeconds: 120, sizeInBytes: 0 });
    expect(newest?.finishedAt).toBeUndefined();
  });

  it('takes no backup of a stopped service after it stopped', async () => {
    const { sim: s } = await start();
    const stopped = await backupsOf(s, DEMO_IDS.ordersStaging);
    // Kept a day, last taken three days before the simulator started: none left.
    expect(stopped).toStrictEqual([]);
  });

  it('a failed backup is among the demo backups somewhere, with status error', async () => {
    const { sim: s } = await start();
    const all = (await Promise.all(Object.values(DEMO_IDS).map((id) => backupsOf(s, id)))).flat();
    expect(all.some((b) => b.status === 'error')).toBe(true);
    expect(all.some((b) => b.status === 'done')).toBe(true);
  });
});

describe('backup configuration', () => {
  const path = `${servicePath(DEMO_IDS.eventsProd)}/backupConfiguration`;

  it('reads the default, patches it with the documented rules, and null resets a field', async () => {
    const { sim: s } = await start();
    expect(expectSuccess(await call(s, 'GET', path))).toStrictEqual({
      backupPeriodInHours: 24,
      backupRetentionPeriodInHours: 24,
    });
    expect(
      expectSuccess(
        await call(s, 'PATCH', path, { body: { backupPeriodInHours: 12, backupRetentionPeriodInHours: 72 } }),
      ),
    ).toStrictEqual({ backupPeriodInHours: 12, backupRetentionPeriodInHours: 72 });
    // A start time resets the period to every 24 hours.
    expect(expectSuccess(await call(s, 'PATCH', path, { body: { backupStartTime: '03:00' } }))).toStrictEqual({
      backupPeriodInHours: 24,
      backupRetentionPeriodInHours: 72,
      backupStartTime: '03:00',
    });
    expect(
      expectSuccess(
        await call(s, 'PATCH', path, { body: { backupStartTime: null, backupRetentionPeriodInHours: null } }),
      ),
    ).toStrictEqual({ backupPeriodInHours: 24, backupRetentionPeriodInHours: 24 });
  });

  it('refuses a retention that is not whole days from 1 to 45, a bad time and an unknown field', async () => {
    const { sim: s } = await start();
    for (const body of [
      { backupRetentionPeriodInHours: 36 },
      { backupRetentionPeriodInHours: 1104 },
      { backupRetentionPeriodInHours: 0 },
      { backupStartTime: '24:00' },
      { backupStartTime: '9:00' },
      { backupPeriodInHours: 0 },
      { backupEvery: 6 },
    ])
      expectError(await call(s, 'PATCH', path, { body }), 400, 'BAD_REQUEST');
    expect(s.backupConfiguration(DEMO_IDS.eventsProd).backupRetentionPeriodInHours).toBe(24);
  });

  it('answers 403 on the BASIC package, in the words of the real API', async () => {
    const { sim: s } = await start();
    s.basicPackage = true;
    const message = expectError(await call(s, 'PATCH', path, { body: { backupPeriodInHours: 12 } }), 403, 'FORBIDDEN');
    expect(message).toContain('Cannot use customized backup schedule in BASIC pricing package');
  });
});

describe('restore and delete', () => {
  it('creates a service from a done backup in the same region and tier, provisioning then running, with its password once', async () => {
    const { sim: s, clock } = await start();
    const backup = (await backupsOf(s, DEMO_IDS.ordersProd)).find((b) => b.status === 'done');
    const response = await call(s, 'POST', listPath(), { body: { name: 'orders-restored', backupId: backup?.id } });
    const created = expectSuccess<{ service: ServiceRecordLike; password: string }>(response);
    expect(created.password.length).toBeGreaterThanOrEqual(16);
    const source = s.service(DEMO_IDS.ordersProd);
    expect(created.service).toMatchObject({
      name: 'orders-restored',
      state: 'provisioning',
      region: source?.region,
      tier: source?.tier,
      numReplicas: source?.numReplicas,
      maxReplicaMemoryGb: source?.maxReplicaMemoryGb,
    });
    expect(JSON.stringify(s.service(created.service.id))).not.toContain(created.password);
    clock.at += 1_000;
    expect(s.service(created.service.id)?.state).toBe('running');
    expect(s.activities().at(-1)).toMatchObject({ type: 'service_create', serviceId: created.service.id });
  });

  it('refuses a backup that is not done, an unknown one, another region, and a bad name', async () => {
    const { sim: s } = await start(Date.parse('2026-11-28T12:02:00Z'));
    const [running] = await backupsOf(s, DEMO_IDS.ordersProd);
    const done = (await backupsOf(s, DEMO_IDS.ordersProd)).find((b) => b.status === 'done');
    for (const body of [
      { name: 'x', backupId: running?.id },
      { name: 'x', backupId: DEMO_IDS.eventsProd },
      { name: 'x', backupId: done?.id, region: 'eu-west-1' },
      { name: '', backupId: done?.id },
      { name: 'x'.repeat(51), backupId: done?.id },
      { backupId: done?.id },
    ])
      expectError(await call(s, 'POST', listPath(), { body }), 400, 'BAD_REQUEST');
  });

  it('deletes only a stopped service, which is terminating and then gone', async () => {
    const { sim: s, clock } = await start();
    expectError(await call(s, 'DELETE', servicePath(DEMO_IDS.eventsProd)), 400, 'BAD_REQUEST');
    const response = await call(s, 'DELETE', servicePath(DEMO_IDS.ordersStaging));
    expect(response.status).toBe(200);
    expect(s.service(DEMO_IDS.ordersStaging)?.state).toBe('terminating');
    clock.at += 1_000;
    expect(s.service(DEMO_IDS.ordersStaging)).toBeUndefined();
    expectError(await call(s, 'GET', servicePath(DEMO_IDS.ordersStaging)), 404, 'NOT_FOUND');
  });
});
