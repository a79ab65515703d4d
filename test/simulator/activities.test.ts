import { afterEach, describe, expect, it } from 'vitest';
import { CloudClient } from '../../src/cloud/client.js';
import { CloudApiError } from '../../src/core/service/api-error.js';
import { DEMO_IDS, DEMO_KEY_ID, DEMO_KEY_SECRET, DEMO_ORG_ID } from '../../src/simulator/seed.js';
import { CONSOLE_EMAIL, type CloudSimulator } from '../../src/simulator/server.js';
import { consoleUser } from '../../src/simulator/state.js';
import { call, expectError, expectSuccess, patchOk, servicePath, startDemo } from './helpers.js';

let sim: CloudSimulator | undefined;
let client: CloudClient | undefined;
afterEach(async () => {
  await client?.close();
  await sim?.close();
  sim = undefined;
  client = undefined;
});

const T0 = Date.parse('2026-11-20T10:00:00Z');

async function demoOnClock() {
  const clock = { at: T0 };
  sim = await startDemo({ now: () => clock.at, transitionMs: 0 });
  return { s: sim, clock };
}

interface Activity {
  type: string;
  actorType: string;
  actorId: string;
  actorDetails?: string;
  serviceId: string;
  createdAt: string;
}

const activitiesPath = `/v1/organizations/${DEMO_ORG_ID}/activities`;

async function activities(s: CloudSimulator, query?: Record<string, string>): Promise<Activity[]> {
  return expectSuccess<Activity[]>(await call(s, 'GET', activitiesPath, { query: new URLSearchParams(query) }));
}

describe('the simulator logs the changes made through it', () => {
  it('logs each basic setting a PATCH touches under its API type, by the key that sent it', async () => {
    const { s } = await demoOnClock();
    await patchOk(s, DEMO_IDS.ordersProd, {
      name: 'orders-main',
      ipAccessList: { add: [{ source: '192.0.2.0/24' }] },
      endpoints: [{ protocol: 'mysql', enabled: true }],
      releaseChannel: 'fast',
    });
    const log = await activities(s);
    expect(log.map((a) => a.type)).toEqual([
      'service_update_name',
      'service_update_ip_access_list',
      'service_update_release_channel',
      'service_update_mysql_interface',
    ]);
    for (const activity of log) {
      expect(activity).toMatchObject({ actorType: 'api', actorId: DEMO_KEY_ID, serviceId: DEMO_IDS.ordersProd });
      expect(activity).not.toHaveProperty('actorDetails');
    }
  });

  it('logs nothing for a refused PATCH', async () => {
    const { s } = await demoOnClock();
    expectError(await call(s, 'PATCH', servicePath(DEMO_IDS.ordersProd), { body: { name: '' } }), 400, 'BAD_REQUEST');
    expect(await activities(s)).toEqual([]);
  });
});

describe('changes made in the console', () => {
  it('are logged under the console user, with their email, one activity per kind of setting changed', async () => {
    const { s, clock } = await demoOnClock();
    const ips = s.service(DEMO_IDS.ordersProd)?.ipAccessList ?? [];
    clock.at += 60_000;
    s.changeInConsole(
      DEMO_IDS.ordersProd,
      { name: 'orders-renamed', ipAccessList: [...ips, { source: '0.0.0.0/0' }], state: 'stopped', numReplicas: 5 },
      consoleUser('jane@example.com'),
    );
    const log = await activities(s);
    expect(log.map((a) => a.type)).toEqual([
      'service_update_name',
      'service_update_ip_access_list',
      'service_update_autoscaling_replicas',
      'service_stop',
    ]);
    for (const activity of log) {
      expect(activity).toMatchObject({
        actorType: 'user',
        actorDetails: 'jane@example.com',
        serviceId: DEMO_IDS.ordersProd,
        createdAt: new Date(T0 + 60_000).toISOString(),
      });
    }
    expect(s.service(DEMO_IDS.ordersProd)).toMatchObject({ name: 'orders-renamed', state: 'stopped' });
  });

  it('logs nothing for a setting set to the value it had, and names a default user when none is given', async () => {
    const { s } = await demoOnClock();
    const before = s.service(DEMO_IDS.searchProd);
    s.changeInConsole(DEMO_IDS.searchProd, { name: before?.name, releaseChannel: before?.releaseChannel });
    expect(await activities(s)).toEqual([]);
    s.changeInConsole(DEMO_IDS.searchProd, { endpoints: [...(before?.endpoints ?? []), { protocol: 'mysql' }] });
    expect(await activities(s)).toMatchObject([
      { type: 'service_update_mysql_interface', actorType: 'user', actorDetails: CONSOLE_EMAIL },
    ]);
  });

  it('changeOutsideBot still changes a service without a trace (fixtures, and the log-less case)', async () => {
    const { s } = await demoOnClock();
    s.changeOutsideBot(DEMO_IDS.searchProd, { name: 'no-trace' });
    expect(await activities(s)).toEqual([]);
  });
});

describe('GET …/activities', () => {
  it('serves a window, both ends inclusive, in the API envelope', async () => {
    const { s, clock } = await demoOnClock();
    for (const name of ['a', 'b', 'c']) {
      await patchOk(s, DEMO_IDS.ordersProd, { name: `orders-${name}` });
      clock.at += 60_000;
    }
    const response = await call(s, 'GET', activitiesPath, {
      query: new URLSearchParams({ from_date: '2026-11-20T10:01:00Z', to_date: '2026-11-20T12:02:00+02:00' }),
    });
    expect(response.body).toMatchObject({ status: 200, requestId: expect.any(String) as unknown });
    expect(expectSuccess<Activity[]>(response).map((a) => a.createdAt)).toEqual([
      '2026-11-20T10:01:00.000Z',
      '2026-11-20T10:02:00.000Z',
    ]);
  });

  it('answers 403 with the error envelope when the key may not read activities', async () => {
    const { s } = await demoOnClock();
    s.activitiesForbidden = true;
    expect(expectError(await call(s, 'GET', activitiesPath), 403, 'FORBIDDEN')).toContain('not allowed');
    expectSuccess(await call(s, 'GET', servicePath(DEMO_IDS.ordersProd)));
  });

  it.each([
    ['from_date', 'yesterday'],
    ['from_date', '2026-11-20'],
    ['to_date', '2026-02-30T00:00:00Z'],
    ['to_date', '2026-11-20T10:00'],
    ['from_date', '1'],
  ])('refuses %s=%s with the API’s 400 envelope', async (name, value) => {
    const { s } = await demoOnClock();
    const response = await call(s, 'GET', activitiesPath, { query: new URLSearchParams({ [name]: value }) });
    expect(expectError(response, 400, 'BAD_REQUEST')).toBe(
      `BAD_REQUEST: query.${name}: 'must match format "date-time"'`,
    );
    expect(response.body).toMatchObject({ status: 400, requestId: expect.any(String) as unknown });
  });
});

describe('CloudClient.listActivities', () => {
  it('reads the window from the simulator, leniently, and says which key it reads with', async () => {
    const { s, clock } = await demoOnClock();
    await patchOk(s, DEMO_IDS.ordersProd, { name: 'orders-main' });
    clock.at += 60_000;
    s.changeInConsole(DEMO_IDS.searchProd, { name: 'search-main' }, consoleUser('jane@example.com'));
    s.recordActivity(DEMO_IDS.searchProd, 'service_update_brand_new_thing', { type: 'system', id: 'sys' });
    client = new CloudClient({ baseUrl: s.url, keyId: DEMO_KEY_ID, keySecret: DEMO_KEY_SECRET, orgId: DEMO_ORG_ID });
    const list = await client.listActivities({ from: T0 + 1, to: T0 + 60_000 });
    expect(list.ownKeyId).toBe(DEMO_KEY_ID);
    expect(list.activities.map((a) => [a.type, a.actorType, a.actorDetails])).toEqual([
      ['service_update_name', 'user', 'jane@example.com'],
      ['service_update_brand_new_thing', 'system', undefined],
    ]);
    const sent = s.requests.at(-1);
    expect(sent?.query.get('from_date')).toBe('2026-11-20T10:00:00.001Z');
    expect(sent?.query.get('to_date')).toBe('2026-11-20T10:01:00.000Z');
  });

  it('turns a refusal into a CloudApiError with its status', async () => {
    const { s } = await demoOnClock();
    s.activitiesForbidden = true;
    client = new CloudClient({ baseUrl: s.url, keyId: DEMO_KEY_ID, keySecret: DEMO_KEY_SECRET, orgId: DEMO_ORG_ID });
    const error = await client.listActivities({ from: T0, to: T0 + 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CloudApiError);
    expect((error as CloudApiError).status).toBe(403);
  });
});
