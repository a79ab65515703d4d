import { afterEach, describe, expect, it } from 'vitest';
import { DEMO_IDS, DEMO_KEY_ID, demoServiceId, demoServices } from '../../src/simulator/seed.js';
import { InProcessDirectory } from '../../src/simulator/directory.js';
import type { CloudSimulator } from '../../src/simulator/server.js';
import type { ServiceRecordLike } from '../../src/simulator/state.js';
import { CloudApiError } from '../../src/core/service/api-error.js';
import { call, expectError, expectSuccess, servicePath, startDemo } from './helpers.js';

let sim: CloudSimulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

/** A demo simulator on a clock the test moves; transitions last 1 s of that clock. */
async function demoOnClock(services: ServiceRecordLike[] = demoServices()) {
  const clock = { at: Date.parse('2026-11-20T10:00:00Z') };
  const started = await startDemo({ services, now: () => clock.at, transitionMs: 1_000 });
  sim = started;
  return { sim: started, clock };
}

const scale = (s: CloudSimulator, id: string, body: unknown) =>
  call(s, 'PATCH', `${servicePath(id)}/replicaScaling`, { body });
const command = (s: CloudSimulator, id: string, body: unknown) =>
  call(s, 'PATCH', `${servicePath(id)}/state`, { body });

async function scaleOk(s: CloudSimulator, id: string, body: unknown): Promise<ServiceRecordLike> {
  return expectSuccess<ServiceRecordLike>(await scale(s, id, body));
}

/** Expects a 400 and checks that neither the service nor the activity log changed. */
async function refused(s: CloudSimulator, id: string, body: unknown, path = 'replicaScaling'): Promise<string> {
  const before = s.service(id);
  const activities = s.activities().length;
  const message = expectError(await call(s, 'PATCH', `${servicePath(id)}/${path}`, { body }), 400, 'BAD_REQUEST');
  expect(s.service(id)).toEqual(before);
  expect(s.activities()).toHaveLength(activities);
  return message;
}

describe('PATCH …/replicaScaling on a vertical service', () => {
  it('sets a fixed replica count, keeps the vertical shape and currentScaling in step', async () => {
    const { sim: s } = await demoOnClock();
    const after = await scaleOk(s, DEMO_IDS.ordersProd, { numReplicas: 5 });
    expect(after).toMatchObject({ autoscalingMode: 'vertical', numReplicas: 5, minReplicaMemoryGb: 8 });
    for (const field of ['minReplicas', 'maxReplicas', 'replicaMemoryGb']) expect(after).not.toHaveProperty(field);
    expect(after['currentScaling']).toMatchObject({ effectiveMinReplicas: 5, effectiveMaxReplicas: 5 });
    expect(s.service(DEMO_IDS.ordersProd)).toEqual(after);
  });

  it('takes min = max replicas as a fixed count, and refuses a range', async () => {
    const { sim: s } = await demoOnClock();
    expect((await scaleOk(s, DEMO_IDS.ordersProd, { minReplicas: 4, maxReplicas: 4 }))['numReplicas']).toBe(4);
    expect(await refused(s, DEMO_IDS.ordersProd, { minReplicas: 2, maxReplicas: 4 })).toContain(
      'needs horizontal autoscaling',
    );
  });

  it('sets a memory range per replica, with the deprecated totals for three workers', async () => {
    const { sim: s } = await demoOnClock();
    const after = await scaleOk(s, DEMO_IDS.ordersProd, { minReplicaMemoryGb: 16, maxReplicaMemoryGb: 64 });
    expect(after).toMatchObject({ minReplicaMemoryGb: 16, maxReplicaMemoryGb: 64, minTotalMemoryGb: 48 });
    expect(after['currentScaling']).toMatchObject({ effectiveMinReplicaMemoryGb: 16, effectiveMaxReplicaMemoryGb: 64 });
  });

  it('switches to horizontal only with a replica range and one memory size, changing the record’s shape', async () => {
    const { sim: s } = await demoOnClock();
    expect(await refused(s, DEMO_IDS.ordersProd, { autoscalingMode: 'horizontal' })).toContain('minReplicas');
    expect(
      await refused(s, DEMO_IDS.ordersProd, { autoscalingMode: 'horizontal', minReplicas: 2, maxReplicas: 4 }),
    ).toContain('must be equal');
    const after = await scaleOk(s, DEMO_IDS.ordersProd, {
      autoscalingMode: 'horizontal',
      minReplicas: 2,
      maxReplicas: 4,
      minReplicaMemoryGb: 24,
      maxReplicaMemoryGb: 24,
    });
    expect(after).toMatchObject({ autoscalingMode: 'horizontal', minReplicas: 2, maxReplicas: 4, replicaMemoryGb: 24 });
    for (const field of ['numReplicas', 'minReplicaMemoryGb', 'maxReplicaMemoryGb', 'minTotalMemoryGb']) {
      expect(after).not.toHaveProperty(field);
    }
    expect(after['currentScaling']).toMatchObject({ effectiveAutoscalingMode: 'horizontal', effectiveMaxReplicas: 4 });
  });

  it('leaves an active scaling schedule’s effective values in force', async () => {
    const { sim: s } = await demoOnClock();
    const after = await scaleOk(s, DEMO_IDS.metricsProd, { numReplicas: 5 });
    expect(after['numReplicas']).toBe(5);
    expect(after['currentScaling']).toMatchObject({ effectiveMinReplicas: 4, effectiveMinReplicaMemoryGb: 16 });
  });
});

describe('PATCH …/replicaScaling on a horizontal service', () => {
  it('sets a replica range and one memory size', async () => {
    const { sim: s } = await demoOnClock();
    expect(await scaleOk(s, DEMO_IDS.searchProd, { minReplicas: 3, maxReplicas: 8 })).toMatchObject({
      minReplicas: 3,
      maxReplicas: 8,
      replicaMemoryGb: 16,
    });
    const after = await scaleOk(s, DEMO_IDS.searchProd, { minReplicaMemoryGb: 32, maxReplicaMemoryGb: 32 });
    expect(after).toMatchObject({ replicaMemoryGb: 32, minReplicas: 3 });
    expect(after).not.toHaveProperty('numReplicas');
    expect(after['currentScaling']).toMatchObject({ effectiveMinReplicaMemoryGb: 32, effectiveMinReplicas: 3 });
  });

  it('refuses numReplicas and a memory range', async () => {
    const { sim: s } = await demoOnClock();
    expect(await refused(s, DEMO_IDS.searchProd, { numReplicas: 3 })).toContain('minReplicas and maxReplicas');
    expect(await refused(s, DEMO_IDS.searchProd, { minReplicaMemoryGb: 16, maxReplicaMemoryGb: 32 })).toContain(
      'must be equal in horizontal',
    );
  });

  it('switches to vertical with a count, taking the replica size as the memory range', async () => {
    const { sim: s } = await demoOnClock();
    expect(await refused(s, DEMO_IDS.searchProd, { autoscalingMode: 'vertical' })).toContain('numReplicas');
    const after = await scaleOk(s, DEMO_IDS.searchProd, { autoscalingMode: 'vertical', numReplicas: 3 });
    expect(after).toMatchObject({ numReplicas: 3, minReplicaMemoryGb: 16, maxReplicaMemoryGb: 16 });
    for (const field of ['minReplicas', 'maxReplicas', 'replicaMemoryGb']) expect(after).not.toHaveProperty(field);
  });
});

describe('PATCH …/replicaScaling bounds and rules', () => {
  it.each([
    [{ numReplicas: 0 }, 'request body.numReplicas'],
    [{ numReplicas: 21 }, 'request body.numReplicas'],
    [{ numReplicas: 2.5 }, 'request body.numReplicas'],
    [{ minReplicas: 0, maxReplicas: 2 }, 'request body.minReplicas'],
    [{ minReplicas: 2, maxReplicas: 21 }, 'request body.maxReplicas'],
    [{ minReplicaMemoryGb: 4, maxReplicaMemoryGb: 8 }, 'request body.minReplicaMemoryGb'],
    [{ minReplicaMemoryGb: 10, maxReplicaMemoryGb: 16 }, 'multiple of 4'],
    [{ minReplicaMemoryGb: 8, maxReplicaMemoryGb: 360 }, 'request body.maxReplicaMemoryGb'],
    [{ minReplicaMemoryGb: '16' }, 'request body.minReplicaMemoryGb'],
    [{ idleTimeoutMinutes: 4 }, 'request body.idleTimeoutMinutes'],
    [{ idleScaling: 'yes' }, 'request body.idleScaling'],
    [{ autoscalingMode: 'diagonal' }, 'request body.autoscalingMode'],
    [{ totalMemoryGb: 96 }, 'totalMemoryGb'],
    [{ numReplicas: 3, minReplicas: 3, maxReplicas: 3 }, 'cannot be combined'],
    [{ minReplicas: 3 }, 'set together'],
    [{ maxReplicas: 3 }, 'set together'],
    [{ minReplicaMemoryGb: 64, maxReplicaMemoryGb: 32 }, 'not be greater than maxReplicaMemoryGb'],
    [{ minReplicaMemoryGb: 64 }, 'not be greater than maxReplicaMemoryGb'],
    [{ numReplicas: 1 }, 'at least 2 replicas'],
  ])('refuses %j with a BAD_REQUEST naming %s', async (body, words) => {
    const { sim: s } = await demoOnClock();
    const message = await refused(s, DEMO_IDS.ordersProd, body);
    expect(message).toMatch(/^BAD_REQUEST: /);
    expect(message).toContain(words);
  });

  it('refuses min above max replicas on a horizontal service', async () => {
    const { sim: s } = await demoOnClock();
    expect(await refused(s, DEMO_IDS.searchProd, { minReplicas: 6, maxReplicas: 2 })).toContain(
      'minReplicas must not be greater than maxReplicas',
    );
  });

  it('lets a service that is not its warehouse’s primary, or a development one, run one replica', async () => {
    const { sim: s } = await demoOnClock();
    expect((await scaleOk(s, DEMO_IDS.ordersProdReadonly, { numReplicas: 1 }))['numReplicas']).toBe(1);
    expect((await scaleOk(s, DEMO_IDS.eventsStaging, { numReplicas: 2 }))['numReplicas']).toBe(2);
  });

  it('changes memory only on production services', async () => {
    const { sim: s } = await demoOnClock();
    expect(await refused(s, DEMO_IDS.sandboxDev, { minReplicaMemoryGb: 16, maxReplicaMemoryGb: 16 })).toContain(
      'production services',
    );
  });

  it('gives BYOC services only their four sizes', async () => {
    const byoc: ServiceRecordLike = {
      ...(demoServices().find((service) => service.id === DEMO_IDS.ordersProd) as ServiceRecordLike),
      id: demoServiceId(1),
      name: 'byoc-prod',
      byocId: 'byoc-aws-1',
      minReplicaMemoryGb: 48,
      maxReplicaMemoryGb: 116,
    };
    const { sim: s } = await demoOnClock([...demoServices(), byoc]);
    expect(await refused(s, byoc.id, { minReplicaMemoryGb: 64, maxReplicaMemoryGb: 116 })).toContain(
      '48, 116, 172, 232',
    );
    expect(await scaleOk(s, byoc.id, { minReplicaMemoryGb: 116, maxReplicaMemoryGb: 232 })).toMatchObject({
      minReplicaMemoryGb: 116,
      maxReplicaMemoryGb: 232,
    });
  });

  it('switches idle scaling and its timeout, in the record and in currentScaling', async () => {
    const { sim: s } = await demoOnClock();
    const off = await scaleOk(s, DEMO_IDS.sandboxDev, { idleScaling: false });
    expect(off).toMatchObject({ idleScaling: false, idleTimeoutMinutes: 15 });
    const on = await scaleOk(s, DEMO_IDS.sandboxDev, { idleScaling: true, idleTimeoutMinutes: 30 });
    expect(on).toMatchObject({ idleScaling: true, idleTimeoutMinutes: 30 });
    expect(on['currentScaling']).toMatchObject({ effectiveIdleScaling: true, effectiveIdleTimeoutMinutes: 30 });
  });

  it('answers 404 for an unknown service and 400 for a body that is not JSON', async () => {
    const { sim: s } = await demoOnClock();
    expectError(await scale(s, demoServiceId(99), { numReplicas: 3 }), 404, 'NOT_FOUND');
    const bad = await call(s, 'PATCH', `${servicePath(DEMO_IDS.ordersProd)}/replicaScaling`, { rawBody: '{' });
    expectError(bad, 400, 'BAD_REQUEST');
  });
});

describe('PATCH …/state', () => {
  it('stops a running service: stopping at once, stopped after the transition', async () => {
    const { sim: s, clock } = await demoOnClock();
    const answered = expectSuccess<ServiceRecordLike>(await command(s, DEMO_IDS.ordersProd, { command: 'stop' }));
    expect(answered.state).toBe('stopping');
    clock.at += 999;
    expect(expectSuccess<ServiceRecordLike>(await call(s, 'GET', servicePath(DEMO_IDS.ordersProd))).state).toBe(
      'stopping',
    );
    clock.at += 1;
    expect(expectSuccess<ServiceRecordLike>(await call(s, 'GET', servicePath(DEMO_IDS.ordersProd))).state).toBe(
      'stopped',
    );
  });

  it('starts a stopped service and wakes an idle one, each through its passing state', async () => {
    const { sim: s, clock } = await demoOnClock();
    const started = expectSuccess<ServiceRecordLike>(await command(s, DEMO_IDS.ordersStaging, { command: 'start' }));
    const woken = expectSuccess<ServiceRecordLike>(await command(s, DEMO_IDS.sandboxDev, { command: 'awake' }));
    expect([started.state, woken.state]).toEqual(['starting', 'awaking']);
    clock.at += 1_000;
    expect([s.service(DEMO_IDS.ordersStaging)?.state, s.service(DEMO_IDS.sandboxDev)?.state]).toEqual([
      'running',
      'running',
    ]);
  });

  it.each([
    [DEMO_IDS.ordersStaging, 'stop', 'cannot stop the service while it is stopped'],
    [DEMO_IDS.ordersProd, 'start', 'cannot start the service while it is running'],
    [DEMO_IDS.sandboxDev, 'start', 'while it is idle'],
    [DEMO_IDS.ordersProd, 'awake', 'only an idle service'],
    [DEMO_IDS.mlDev, 'awake', 'while it is stopped'],
  ])('refuses on %s the command %s that does not fit its state', async (id, name, words) => {
    const { sim: s } = await demoOnClock();
    expect(await refused(s, id, { command: name }, 'state')).toContain(words);
  });

  it('refuses a second stop while the first is under way, and an unknown command', async () => {
    const { sim: s } = await demoOnClock();
    await command(s, DEMO_IDS.ordersProd, { command: 'stop' });
    expect(await refused(s, DEMO_IDS.ordersProd, { command: 'stop' }, 'state')).toContain('while it is stopping');
    expect(await refused(s, DEMO_IDS.eventsProd, { command: 'pause' }, 'state')).toContain(
      "request body.command: 'must be one of: start, stop, awake'",
    );
    expect(await refused(s, DEMO_IDS.eventsProd, { command: 'stop', force: true }, 'state')).toContain('force');
  });

  it('settles on the real clock too, after the configured delay', async () => {
    sim = await startDemo({ transitionMs: 60 });
    expect(expectSuccess<ServiceRecordLike>(await command(sim, DEMO_IDS.eventsProd, { command: 'stop' })).state).toBe(
      'stopping',
    );
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(expectSuccess<ServiceRecordLike>(await call(sim, 'GET', servicePath(DEMO_IDS.eventsProd))).state).toBe(
      'stopped',
    );
  });

  it('forgets a transition when someone sets the state by hand', async () => {
    const { sim: s, clock } = await demoOnClock();
    await command(s, DEMO_IDS.ordersProd, { command: 'stop' });
    s.changeOutsideBot(DEMO_IDS.ordersProd, { state: 'running' });
    clock.at += 5_000;
    expect(s.service(DEMO_IDS.ordersProd)?.state).toBe('running');
  });
});

describe('GET …/activities', () => {
  interface Activity {
    id: string;
    createdAt: string;
    type: string;
    actorType: string;
    actorId: string;
    organizationId: string;
    serviceId: string;
  }

  it('records each applied change with the key that made it, and serves a date range', async () => {
    const { sim: s, clock } = await demoOnClock();
    const start = clock.at;
    await call(s, 'PATCH', servicePath(DEMO_IDS.ordersProd), { body: { name: 'orders-main' } });
    clock.at += 60_000;
    await scaleOk(s, DEMO_IDS.ordersProd, { numReplicas: 4, idleScaling: false });
    clock.at += 60_000;
    await command(s, DEMO_IDS.ordersProd, { command: 'stop' });
    await refused(s, DEMO_IDS.ordersProd, { numReplicas: 40 });

    const all = expectSuccess<Activity[]>(await call(s, 'GET', `/v1/organizations/${s.orgId}/activities`));
    expect(all.map((activity) => activity.type)).toEqual([
      'service_update_name',
      'service_update_autoscaling_replicas',
      'service_update_autoscaling_idling',
      'service_stop',
    ]);
    for (const activity of all) {
      expect(activity).toMatchObject({
        actorType: 'api',
        actorId: DEMO_KEY_ID,
        organizationId: s.orgId,
        serviceId: DEMO_IDS.ordersProd,
      });
    }
    expect(all[0]?.createdAt).toBe(new Date(start).toISOString());
    expect(new Set(all.map((activity) => activity.id)).size).toBe(4);

    const query = new URLSearchParams({
      from_date: new Date(start + 30_000).toISOString(),
      to_date: new Date(start + 90_000).toISOString(),
    });
    const middle = expectSuccess<Activity[]>(
      await call(s, 'GET', `/v1/organizations/${s.orgId}/activities`, { query }),
    );
    expect(middle.map((activity) => activity.type)).toEqual([
      'service_update_autoscaling_replicas',
      'service_update_autoscaling_idling',
    ]);
  });

  it('serves activities other people left (a console user) next to the bot’s own', async () => {
    const { sim: s } = await demoOnClock();
    s.changeOutsideBot(DEMO_IDS.searchProd, { name: 'search-main' });
    s.recordActivity(DEMO_IDS.searchProd, 'service_update_name', { type: 'user', id: 'user-1234' });
    await scaleOk(s, DEMO_IDS.searchProd, { minReplicas: 2, maxReplicas: 8 });
    const all = expectSuccess<Activity[]>(await call(s, 'GET', `/v1/organizations/${s.orgId}/activities`));
    expect(all.map((activity) => [activity.actorType, activity.actorId, activity.type])).toEqual([
      ['user', 'user-1234', 'service_update_name'],
      ['api', DEMO_KEY_ID, 'service_update_autoscaling_replicas'],
    ]);
  });

  it('refuses a date that is not one, and another organization', async () => {
    const { sim: s } = await demoOnClock();
    const query = new URLSearchParams({ from_date: 'yesterday' });
    const message = expectError(
      await call(s, 'GET', `/v1/organizations/${s.orgId}/activities`, { query }),
      400,
      'BAD_REQUEST',
    );
    expect(message).toContain('from_date');
    expectError(
      await call(s, 'GET', '/v1/organizations/99999999-9999-4999-8999-999999999999/activities'),
      404,
      'NOT_FOUND',
    );
  });
});

describe('in-process directory', () => {
  it('scales and changes state with the same rules, refusing with a CloudApiError', async () => {
    const directory = new InProcessDirectory(demoServices());
    const scaled = await directory.scaleReplicas(DEMO_IDS.searchProd, { minReplicas: 2, maxReplicas: 10 });
    expect(scaled.service).toMatchObject({ minReplicas: 2, maxReplicas: 10 });
    const stopped = await directory.changeState(DEMO_IDS.searchProd, 'stop');
    expect(stopped.service.state).toBe('stopped');
    const error = await directory.changeState(DEMO_IDS.searchProd, 'stop').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CloudApiError);
    expect((error as CloudApiError).status).toBe(400);
    expect(directory.scalings).toHaveLength(1);
    expect(directory.stateChanges).toEqual([{ serviceId: DEMO_IDS.searchProd, command: 'stop' }]);
    expect(directory.state.activities().map((activity) => activity.type)).toEqual([
      'service_update_autoscaling_replicas',
      'service_stop',
    ]);
  });
});
