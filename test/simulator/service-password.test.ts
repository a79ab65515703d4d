/** PATCH …/services/{serviceId}/password over real HTTP: generated or hashed, refusals, activity. */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DEMO_IDS, DEMO_KEY_ID } from '../../src/simulator/seed.js';
import { call, expectError, expectSuccess, servicePath, demoStarter } from './helpers.js';

const PATH = `${servicePath(DEMO_IDS.ordersProd)}/password`;
const sha256 = (text: string): string => createHash('sha256').update(text).digest('base64');
const doubleSha1 = (text: string): string =>
  createHash('sha1').update(createHash('sha1').update(text).digest()).digest('hex');

const start = demoStarter(Date.parse('2026-11-28T13:20:00Z'));

describe('service password', () => {
  it('generates a password and returns it once when no hash is sent, and records the activity', async () => {
    const s = await start();
    const result = expectSuccess<{ password?: string }>(await call(s, 'PATCH', PATH, { body: {} }));
    expect(result.password).toMatch(/^\S{12,}$/);
    expect(s.servicePassword(DEMO_IDS.ordersProd)?.passwordHash).toBe(sha256(result.password ?? ''));
    const activity = s.activities().at(-1);
    expect(activity).toMatchObject({
      type: 'service_update_password',
      serviceId: DEMO_IDS.ordersProd,
      actorType: 'api',
      actorId: DEMO_KEY_ID,
    });
    const again = expectSuccess<{ password?: string }>(await call(s, 'PATCH', PATH, { body: {} }));
    expect(again.password).not.toBe(result.password);
  });

  it('takes a SHA-256 hash (and the MySQL double SHA-1 beside it) and returns no password', async () => {
    const s = await start();
    const body = { newPasswordHash: sha256('correct horse'), newDoubleSha1Hash: doubleSha1('correct horse') };
    expect(expectSuccess(await call(s, 'PATCH', PATH, { body }))).toStrictEqual({});
    expect(s.servicePassword(DEMO_IDS.ordersProd)).toStrictEqual({
      passwordHash: body.newPasswordHash,
      doubleSha1Hash: body.newDoubleSha1Hash,
    });
  });

  it('ignores a double SHA-1 sent without newPasswordHash and generates a password', async () => {
    const s = await start();
    const result = expectSuccess<{ password?: string }>(
      await call(s, 'PATCH', PATH, { body: { newDoubleSha1Hash: doubleSha1('x') } }),
    );
    expect(typeof result.password).toBe('string');
    expect(s.servicePassword(DEMO_IDS.ordersProd)).not.toHaveProperty('doubleSha1Hash');
  });

  it.each([
    [{ newPasswordHash: 'correct horse' }, 'request body.newPasswordHash'],
    [{ newPasswordHash: Buffer.alloc(20).toString('base64') }, '32 bytes'],
    [{ newPasswordHash: sha256('x'), newDoubleSha1Hash: 'abc' }, 'request body.newDoubleSha1Hash'],
    [{ newPasswordHash: 42 }, "request body.newPasswordHash: 'must be string'"],
    [{ password: 'plain' }, 'request body'],
  ])('refuses %j with a 400 and changes nothing', async (body, message) => {
    const s = await start();
    expect(expectError(await call(s, 'PATCH', PATH, { body }), 400, 'BAD_REQUEST')).toContain(message);
    expect(s.servicePassword(DEMO_IDS.ordersProd)).toBeUndefined();
    expect(s.activities().filter((a) => a.type === 'service_update_password')).toHaveLength(0);
  });

  it('answers 404 for an unknown service and 405 for GET', async () => {
    const s = await start();
    const unknown = `${servicePath('5e000000-0000-4000-8000-0000000000ff')}/password`;
    expectError(await call(s, 'PATCH', unknown, { body: {} }), 404, 'NOT_FOUND');
    expectError(await call(s, 'GET', PATH), 405, 'METHOD_NOT_ALLOWED');
  });
});
