/** …/services/{serviceId}/serviceQueryEndpoint over real HTTP: upsert, read, delete, refusals. */
import { describe, expect, it } from 'vitest';
import { DEMO_IDS, DEMO_KEY_ID, DEMO_OTHER_KEY_IDS } from '../../src/simulator/seed.js';
import { call, expectDeletedOnce, expectError, expectSuccess, servicePath, demoStarter, UUID_V4 } from './helpers.js';

const PATH = `${servicePath(DEMO_IDS.ordersProd)}/serviceQueryEndpoint`;
const BODY = {
  roles: ['sql_console_read_only'],
  openApiKeys: [DEMO_OTHER_KEY_IDS.unused],
  allowedOrigins: 'a.example.com,b.example.com',
};

interface Endpoint {
  id: string;
  roles: string[];
  openApiKeys: string[];
  allowedOrigins: string;
}

const start = demoStarter(Date.parse('2026-11-28T13:20:00Z'));

describe('service query endpoint', () => {
  it('answers 404 until one is configured; POST creates it and GET reads it back', async () => {
    const s = await start();
    expect(expectError(await call(s, 'GET', PATH), 404, 'NOT_FOUND')).toContain('no query endpoint');
    const created = expectSuccess<Endpoint>(await call(s, 'POST', PATH, { body: BODY }));
    expect(created.id).toMatch(UUID_V4);
    expect(created).toStrictEqual({ id: created.id, ...BODY });
    expect(expectSuccess(await call(s, 'GET', PATH))).toStrictEqual(created);
  });

  it('updates in place on a second POST: same id, fields sent replace, fields left out stay', async () => {
    const s = await start();
    const first = expectSuccess<Endpoint>(await call(s, 'POST', PATH, { body: BODY }));
    const body = { roles: ['sql_console_admin'], openApiKeys: [DEMO_KEY_ID, DEMO_OTHER_KEY_IDS.neverExpires] };
    const second = expectSuccess<Endpoint>(await call(s, 'POST', PATH, { body }));
    expect(second).toStrictEqual({ id: first.id, ...body, allowedOrigins: BODY.allowedOrigins });
  });

  it('deletes it (then 404), and answers 404 to deleting none', async () => {
    const s = await start();
    await call(s, 'POST', PATH, { body: BODY });
    await expectDeletedOnce(s, PATH);
  });

  it.each([
    [{ ...BODY, openApiKeys: ['not-a-key'] }, 'API key not-a-key is not a key of this organization'],
    [
      { ...BODY, roles: ['admin'] },
      "request body.roles[0]: 'must be one of: sql_console_read_only, sql_console_admin'",
    ],
    [
      { ...BODY, allowedOrigins: 'https://a.example.com/' },
      "request body.allowedOrigins: 'must be a comma separated list of domains'",
    ],
    [{ ...BODY, allowedOrigins: ['a.example.com'] }, "request body.allowedOrigins: 'must be string'"],
    [{ ...BODY, extra: true }, 'request body'],
  ])('refuses %j with a 400 and stores nothing', async (body, message) => {
    const s = await start();
    expect(expectError(await call(s, 'POST', PATH, { body }), 400, 'BAD_REQUEST')).toContain(message);
    expectError(await call(s, 'GET', PATH), 404, 'NOT_FOUND');
  });

  it('answers 404 for an unknown service', async () => {
    const s = await start();
    const unknown = `${servicePath('5e000000-0000-4000-8000-0000000000ff')}/serviceQueryEndpoint`;
    expectError(await call(s, 'POST', unknown, { body: BODY }), 404, 'NOT_FOUND');
  });
});
