/** CloudClient's PATCHes of a member's roles and of an API key, against the simulator over HTTP. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CloudClient } from '../../src/cloud/client.js';
import { scopedDirectory } from '../../src/cloud/scoped-directory.js';
import { CloudApiError } from '../../src/core/service/api-error.js';
import { ownKeyOf } from '../../src/core/access/api-key.js';
import { CloudSimulator } from '../../src/simulator/server.js';
import { InProcessDirectory } from '../../src/simulator/directory.js';
import {
  DEMO_IDS,
  DEMO_MEMBER_IDS,
  DEMO_ORG_ID,
  DEMO_OTHER_KEY_IDS,
  DEMO_ROLE_IDS,
  demoServices,
} from '../../src/simulator/seed.js';

const KEY_ID = 'accessWritesKey';
const KEY_SECRET = 'access-writes-secret-value';

let sim: CloudSimulator;
let client: CloudClient;

beforeEach(async () => {
  sim = await CloudSimulator.start({ keyId: KEY_ID, keySecret: KEY_SECRET, orgId: DEMO_ORG_ID, services: [] });
  client = new CloudClient({
    baseUrl: sim.url,
    keyId: KEY_ID,
    keySecret: KEY_SECRET,
    orgId: DEMO_ORG_ID,
    throttle: false,
    backoffBaseMs: 5,
    backoffMaxMs: 20,
    rateLimitPaddingMs: 0,
  });
});
afterEach(async () => {
  await client.close();
  await sim.close();
});

async function failure(promise: Promise<unknown>): Promise<CloudApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof CloudApiError)) throw new Error(`expected a CloudApiError, got ${String(error)}`);
  return error;
}

const patches = () => sim.requests.filter((request) => request.method === 'PATCH');

describe("a member's roles", () => {
  it('sends the whole role list as assignedRoleIds and answers the member as the API returned it', async () => {
    const roles = [DEMO_ROLE_IDS.developer, DEMO_ROLE_IDS.admin];
    const result = await client.updateMember(DEMO_MEMBER_IDS.developer, { assignedRoleIds: roles });
    expect(result.member.assignedRoles.map((role) => role.roleName)).toStrictEqual(['Developer', 'Admin']);
    expect(result.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(patches()[0]?.body).toStrictEqual({ assignedRoleIds: roles });
    expect(patches()[0]?.path).toBe(`/v1/organizations/${DEMO_ORG_ID}/members/${DEMO_MEMBER_IDS.developer}`);
  });

  it('sends an empty role list as it is, and the API refuses it (400, nothing changed)', async () => {
    const error = await failure(client.updateMember(DEMO_MEMBER_IDS.developer, { assignedRoleIds: [] }));
    expect([error.status, error.certainlyNotApplied]).toStrictEqual([400, true]);
    const members = await client.listMembers();
    const developer = members.find((member) => member.userId === DEMO_MEMBER_IDS.developer);
    expect(developer?.assignedRoles.map((role) => role.roleName)).toStrictEqual(['Developer']);
  });

  it("turns the API's 400 (a role it lacks) and 404 (an unknown member) into typed errors", async () => {
    const badRole = await failure(
      client.updateMember(DEMO_MEMBER_IDS.developer, { assignedRoleIds: ['no-such-role'] }),
    );
    expect([badRole.kind, badRole.status, badRole.certainlyNotApplied]).toStrictEqual(['http', 400, true]);
    expect(badRole.details.apiMessage).toContain('role no-such-role not found');
    const unknown = await failure(client.updateMember('nobody', { assignedRoleIds: [DEMO_ROLE_IDS.admin] }));
    expect(unknown.status).toBe(404);
    expect(unknown.details.apiMessage).toContain('member nobody not found');
  });

  it('encodes a user id so that it cannot reach another path', async () => {
    const error = await failure(client.updateMember('../keys/x', { assignedRoleIds: [DEMO_ROLE_IDS.admin] }));
    expect(error.status).toBe(404);
    expect(patches()[0]?.path).toBe(`/v1/organizations/${DEMO_ORG_ID}/members/..%2Fkeys%2Fx`);
  });
});

describe('an API key', () => {
  it('disables a key and answers it disabled; the simulator logs a state-changed activity naming it', async () => {
    const result = await client.updateKey(DEMO_OTHER_KEY_IDS.unused, { state: 'disabled' });
    expect(result.key).toMatchObject({ id: DEMO_OTHER_KEY_IDS.unused, state: 'disabled', name: 'ci-readonly' });
    expect(sim.activities().at(-1)).toMatchObject({
      type: 'openapi_key_update',
      targetKeyId: DEMO_OTHER_KEY_IDS.unused,
      keyUpdateType: 'state-changed',
      actorId: KEY_ID,
    });
  });

  it('sets an expiry, and null for never', async () => {
    const at = '2027-01-01T00:00:00.000Z';
    expect((await client.updateKey(DEMO_OTHER_KEY_IDS.unused, { expireAt: at })).key.expireAt).toBe(at);
    expect((await client.updateKey(DEMO_OTHER_KEY_IDS.unused, { expireAt: null })).key.expireAt).toBeNull();
    expect(patches().map((request) => request.body)).toStrictEqual([{ expireAt: at }, { expireAt: null }]);
  });

  it.each([
    ['an unknown state', { state: 'paused' }],
    ['a date that is not ISO-8601', { expireAt: 'next tuesday' }],
    ['a field the bot never sends', { roles: ['admin'] }],
    ['a new name (the bot never renames a key)', { name: 'x' }],
  ])('refuses %s before sending it', async (_what, patch) => {
    const error = await failure(client.updateKey(DEMO_OTHER_KEY_IDS.unused, patch as never));
    expect(error.kind).toBe('invalid-request');
    expect(patches()).toHaveLength(0);
  });

  it('answers 404 for an unknown key, and never retries a PATCH after a 5xx', async () => {
    expect((await failure(client.updateKey('no-such-key', { state: 'disabled' }))).status).toBe(404);
    sim.faults.failNext(1, 502, { on: 'PATCH' });
    const lost = await failure(client.updateKey(DEMO_OTHER_KEY_IDS.unused, { state: 'disabled' }));
    expect(lost.certainlyNotApplied).toBe(false);
    expect(patches()).toHaveLength(2);
  });

  it('joins a read of the keys under way, and reads afresh once it is done', async () => {
    const [a, b] = await Promise.all([client.listApiKeys(), client.listApiKeys()]);
    expect(a).toBe(b);
    await client.updateKey(DEMO_OTHER_KEY_IDS.unused, { state: 'disabled' });
    const after = await client.listApiKeys();
    expect(after.keys.find((key) => key.id === DEMO_OTHER_KEY_IDS.unused)?.state).toBe('disabled');
    expect(sim.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/keys'))).toHaveLength(2);
  });

  it('knows its own key without a request, and finds it in the list', async () => {
    expect(client.ownKeyId()).toBe(KEY_ID);
    expect(sim.requests).toHaveLength(0);
    const list = await client.listApiKeys();
    expect(ownKeyOf(list.keys, client.ownKeyId())?.name).toBe('chat-ops bot');
  });

  it('passes writes through a channel scope (keys and members belong to the organization)', async () => {
    const scoped = scopedDirectory(client, { names: ['nothing-matches'] });
    expect(scoped.ownKeyId()).toBe(KEY_ID);
    expect((await scoped.updateKey(DEMO_OTHER_KEY_IDS.unused, { state: 'disabled' })).key.state).toBe('disabled');
    const member = await scoped.updateMember(DEMO_MEMBER_IDS.billing, { assignedRoleIds: [DEMO_ROLE_IDS.developer] });
    expect(member.member.assignedRoles.map((role) => role.roleName)).toStrictEqual(['Developer']);
  });
});

describe('the in-process directory', () => {
  it('keeps its key and member changes, names its own key, and refuses as the API does', async () => {
    const directory = new InProcessDirectory(demoServices().filter((service) => service.id === DEMO_IDS.mlDev));
    await directory.updateKey(DEMO_OTHER_KEY_IDS.neverExpires, { state: 'disabled' });
    const keys = await directory.listApiKeys();
    expect(keys.keys.find((key) => key.id === DEMO_OTHER_KEY_IDS.neverExpires)?.state).toBe('disabled');
    expect(directory.ownKeyId()).toBe(keys.ownKeyId);
    const refused = await failure(directory.updateMember(DEMO_MEMBER_IDS.billing, { assignedRoleIds: ['nope'] }));
    expect([refused.status, refused.certainlyNotApplied]).toStrictEqual([400, true]);
    expect((await failure(directory.updateKey('nope', { state: 'enabled' }))).status).toBe(404);
    await directory.updateMember(DEMO_MEMBER_IDS.billing, { assignedRoleIds: [DEMO_ROLE_IDS.admin] });
    const members = await directory.listMembers();
    expect(members.find((m) => m.userId === DEMO_MEMBER_IDS.billing)?.assignedRoles[0]?.roleName).toBe('Admin');
  });
});
