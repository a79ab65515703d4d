/** Members, roles and API keys over real HTTP: seeded shapes, PATCH/DELETE rules, activities, usedAt. */
import { describe, expect, it } from 'vitest';
import {
  DEMO_KEY_ID,
  DEMO_KEY_SECRET,
  DEMO_MEMBER_IDS,
  DEMO_ORG_ID,
  DEMO_OTHER_KEY_IDS,
  DEMO_ROLE_IDS,
} from '../../src/simulator/seed.js';
import { consoleUser } from '../../src/simulator/state.js';
import { call, expectError, expectSuccess, demoStarter } from './helpers.js';

const AT = Date.parse('2026-11-28T13:20:42Z');
const DAY = 24 * 3_600_000;
const org = `/v1/organizations/${DEMO_ORG_ID}`;

interface AssignedRole {
  roleId: string;
  roleName: string;
  roleType: string;
}
interface Member {
  userId: string;
  name: string;
  email: string;
  joinedAt: string;
  assignedRoles: AssignedRole[];
}
interface Key {
  id: string;
  name: string;
  state: string;
  assignedRoles: AssignedRole[];
  keySuffix: string;
  createdAt: string;
  expireAt?: string | null;
  usedAt?: string;
  ipAccessList: Array<{ source: string; description?: string }>;
}
interface Role {
  id: string;
  name: string;
  type: string;
  actors: string[];
}

const start = demoStarter(AT);

const ADMIN: AssignedRole = { roleId: DEMO_ROLE_IDS.admin, roleName: 'Admin', roleType: 'system' };
const DEVELOPER: AssignedRole = { roleId: DEMO_ROLE_IDS.developer, roleName: 'Developer', roleType: 'system' };

describe('roles and members', () => {
  it('lists the system Admin and Developer roles and a custom one, with their actors', async () => {
    const s = await start();
    const roles = expectSuccess<Role[]>(await call(s, 'GET', `${org}/roles`));
    expect(roles.map((role) => [role.name, role.type])).toStrictEqual([
      ['Admin', 'system'],
      ['Developer', 'system'],
      ['Billing viewer', 'custom'],
    ]);
    expect(roles[0]?.actors).toContain(`user/${DEMO_MEMBER_IDS.admin}`);
    expect(roles[0]?.actors).toContain(`apiKey/${DEMO_KEY_ID}`);
    expect(roles[0]).toMatchObject({ tenantId: `organization/${DEMO_ORG_ID}`, ownerId: `organization/${DEMO_ORG_ID}` });
  });

  it('lists members with their assigned roles, and reads one', async () => {
    const s = await start();
    const members = expectSuccess<Member[]>(await call(s, 'GET', `${org}/members`));
    expect(members.map((member) => member.assignedRoles[0]?.roleName)).toStrictEqual([
      'Admin',
      'Developer',
      'Billing viewer',
    ]);
    const one = expectSuccess<Member>(await call(s, 'GET', `${org}/members/${DEMO_MEMBER_IDS.developer}`));
    expect(one).toStrictEqual({
      userId: DEMO_MEMBER_IDS.developer,
      name: 'Dev Eloper',
      email: 'dev@example.com',
      joinedAt: new Date(AT - 400 * DAY).toISOString(),
      assignedRoles: [DEVELOPER],
    });
    expectError(await call(s, 'GET', `${org}/members/nobody`), 404, 'NOT_FOUND');
  });

  it('replaces a member roles with PATCH assignedRoleIds and logs it', async () => {
    const s = await start();
    const path = `${org}/members/${DEMO_MEMBER_IDS.developer}`;
    const body = { assignedRoleIds: [DEMO_ROLE_IDS.admin, DEMO_ROLE_IDS.billingViewer] };
    const patched = expectSuccess<Member>(await call(s, 'PATCH', path, { body }));
    expect(patched.assignedRoles.map((role) => role.roleName)).toStrictEqual(['Admin', 'Billing viewer']);
    expect(expectSuccess<Member>(await call(s, 'GET', path)).assignedRoles).toStrictEqual(patched.assignedRoles);
    expect(s.activities().at(-1)).toMatchObject({ type: 'organization_member_update_roles', actorId: DEMO_KEY_ID });
  });

  it.each([
    [{ assignedRoleIds: ['no-such-role'] }, 'role no-such-role not found'],
    [{ assignedRoleIds: [] }, "request body.assignedRoleIds: 'must NOT have fewer than 1 items'"],
    [{ role: 'admin', extra: 1 }, 'request body'],
  ])('refuses a member PATCH %j with a 400', async (body, message) => {
    const s = await start();
    const path = `${org}/members/${DEMO_MEMBER_IDS.developer}`;
    expect(expectError(await call(s, 'PATCH', path, { body }), 400, 'BAD_REQUEST')).toContain(message);
    expect(expectSuccess<Member>(await call(s, 'GET', path)).assignedRoles).toStrictEqual([DEVELOPER]);
  });

  it('removes a member, but not the last admin', async () => {
    const s = await start();
    expect((await call(s, 'DELETE', `${org}/members/${DEMO_MEMBER_IDS.billing}`)).status).toBe(200);
    expectError(await call(s, 'GET', `${org}/members/${DEMO_MEMBER_IDS.billing}`), 404, 'NOT_FOUND');
    expect(s.activities().at(-1)?.type).toBe('organization_member_delete');
    const last = await call(s, 'DELETE', `${org}/members/${DEMO_MEMBER_IDS.admin}`);
    expect(expectError(last, 400, 'BAD_REQUEST')).toContain('last admin');
  });
});

describe('API keys', () => {
  it('lists the seeded keys: the simulator own (in use), an unused one and one that never expires', async () => {
    const s = await start();
    const keys = expectSuccess<Key[]>(await call(s, 'GET', `${org}/keys`));
    const [own, unused, forever] = keys;
    expect(own).toMatchObject({
      id: DEMO_KEY_ID,
      state: 'enabled',
      assignedRoles: [ADMIN],
      keySuffix: DEMO_KEY_SECRET.slice(-4),
      usedAt: '2026-11-28T13:20:00.000Z',
    });
    expect(unused).toMatchObject({ id: DEMO_OTHER_KEY_IDS.unused, createdAt: new Date(AT - 120 * DAY).toISOString() });
    expect(unused).not.toHaveProperty('usedAt');
    expect(unused?.assignedRoles).toStrictEqual([DEVELOPER]);
    expect(forever).toMatchObject({ id: DEMO_OTHER_KEY_IDS.neverExpires, expireAt: null });
    for (const key of keys) expect(key.keySuffix).toHaveLength(4);
  });

  it('moves the own key usedAt with each request (one-minute precision)', async () => {
    const clock = { at: AT };
    const s = await start(clock);
    clock.at += 5 * 60_000;
    const own = expectSuccess<Key>(await call(s, 'GET', `${org}/keys/${DEMO_KEY_ID}`));
    expect(own.usedAt).toBe('2026-11-28T13:25:00.000Z');
  });

  it('PATCHes name, state, expiry, roles and IP list, logging one openapi_key_update per kind', async () => {
    const s = await start();
    const path = `${org}/keys/${DEMO_OTHER_KEY_IDS.unused}`;
    const body = {
      name: 'ci',
      state: 'disabled',
      expireAt: null,
      assignedRoleIds: [DEMO_ROLE_IDS.admin],
      ipAccessList: [{ source: '198.51.100.7' }],
    };
    const key = expectSuccess<Key>(await call(s, 'PATCH', path, { body }));
    expect(key).toMatchObject({ name: 'ci', state: 'disabled', expireAt: null, assignedRoles: [ADMIN] });
    expect(key.ipAccessList).toStrictEqual([{ source: '198.51.100.7' }]);
    const updates = s.activities().filter((activity) => activity.type === 'openapi_key_update');
    expect(updates.map((activity) => activity.keyUpdateType).sort()).toStrictEqual([
      'date-changed',
      'ip-access-list-changed',
      'name-changed',
      'roles-v2-changed',
      'state-changed',
    ]);
    for (const activity of updates) {
      expect(activity).toMatchObject({
        targetKeyId: DEMO_OTHER_KEY_IDS.unused,
        actorType: 'api',
        actorId: DEMO_KEY_ID,
      });
      expect(activity).not.toHaveProperty('serviceId');
    }
  });

  it('logs nothing for a PATCH that changes nothing', async () => {
    const s = await start();
    const path = `${org}/keys/${DEMO_OTHER_KEY_IDS.unused}`;
    expectSuccess(await call(s, 'PATCH', path, { body: { name: 'ci-readonly', state: 'enabled' } }));
    expect(s.activities().filter((activity) => activity.type === 'openapi_key_update')).toHaveLength(0);
  });

  it.each([
    [{ state: 'paused' }, "request body.state: 'must be one of: enabled, disabled'"],
    [{ expireAt: 'tomorrow' }, 'request body.expireAt'],
    [{ assignedRoleIds: ['nope'] }, 'role nope not found'],
    [{ ipAccessList: [{ source: 'not-an-ip' }] }, 'request body.ipAccessList[0].source'],
    [{ name: '' }, "request body.name: 'must NOT have fewer than 1 characters'"],
  ])('refuses a key PATCH %j with a 400', async (body, message) => {
    const s = await start();
    const path = `${org}/keys/${DEMO_OTHER_KEY_IDS.unused}`;
    expect(expectError(await call(s, 'PATCH', path, { body }), 400, 'BAD_REQUEST')).toContain(message);
  });

  it('deletes another key (logged), refuses to delete the key of the request, 404 for an unknown one', async () => {
    const s = await start();
    expect((await call(s, 'DELETE', `${org}/keys/${DEMO_OTHER_KEY_IDS.neverExpires}`)).status).toBe(200);
    expect(s.activities().at(-1)).toMatchObject({ type: 'key_delete', targetKeyId: DEMO_OTHER_KEY_IDS.neverExpires });
    expectError(await call(s, 'GET', `${org}/keys/${DEMO_OTHER_KEY_IDS.neverExpires}`), 404, 'NOT_FOUND');
    const own = await call(s, 'DELETE', `${org}/keys/${DEMO_KEY_ID}`);
    expect(expectError(own, 400, 'BAD_REQUEST')).toContain(
      'Only a key not used to authenticate the active request can be deleted',
    );
  });

  it('stops authenticating with its own key once it is disabled (401)', async () => {
    const s = await start();
    expectSuccess(await call(s, 'PATCH', `${org}/keys/${DEMO_KEY_ID}`, { body: { state: 'disabled' } }));
    expectError(await call(s, 'GET', `${org}/keys`), 401, 'UNAUTHORIZED');
  });

  it('answers POST on the collections with 405 (creating keys and roles is not simulated)', async () => {
    const s = await start();
    expectError(await call(s, 'POST', `${org}/keys`, { body: {} }), 405, 'METHOD_NOT_ALLOWED');
    expectError(await call(s, 'GET', `${org}/roles/${DEMO_ROLE_IDS.admin}`), 404, 'NOT_FOUND');
  });
});

describe('refusals through HTTP and changes made in the console', () => {
  it('answers 404 for a PATCH of an unknown member or key, 400 for a body that is not JSON, and changes nothing', async () => {
    const s = await start();
    const body = { assignedRoleIds: [DEMO_ROLE_IDS.admin] };
    expect(expectError(await call(s, 'PATCH', `${org}/members/nobody`, { body }), 404, 'NOT_FOUND')).toContain(
      'member nobody not found',
    );
    const missingKey = await call(s, 'PATCH', `${org}/keys/no-such-key`, { body: { state: 'disabled' } });
    expect(expectError(missingKey, 404, 'NOT_FOUND')).toContain('API key no-such-key not found');
    const path = `${org}/keys/${DEMO_OTHER_KEY_IDS.unused}`;
    expectError(await call(s, 'PATCH', path, { rawBody: '{"state":' }), 400, 'BAD_REQUEST');
    expectError(await call(s, 'PATCH', path, { body: { state: 'DISABLED' } }), 400, 'BAD_REQUEST');
    expect(expectSuccess<Key>(await call(s, 'GET', path)).state).toBe('enabled');
    expect(s.activities()).toHaveLength(0);
  });

  it('refuses to take the Admin role from the last admin, and allows it once another member is admin', async () => {
    const s = await start();
    const adminPath = `${org}/members/${DEMO_MEMBER_IDS.admin}`;
    const demote = { body: { assignedRoleIds: [DEMO_ROLE_IDS.developer] } };
    expect(expectError(await call(s, 'PATCH', adminPath, demote), 400, 'BAD_REQUEST')).toContain(
      'the last admin of the organization cannot lose the Admin role',
    );
    expect(expectSuccess<Member>(await call(s, 'GET', adminPath)).assignedRoles).toStrictEqual([ADMIN]);
    const promote = { body: { assignedRoleIds: [DEMO_ROLE_IDS.developer, DEMO_ROLE_IDS.admin] } };
    expectSuccess(await call(s, 'PATCH', `${org}/members/${DEMO_MEMBER_IDS.developer}`, promote));
    expect(expectSuccess<Member>(await call(s, 'PATCH', adminPath, demote)).assignedRoles).toStrictEqual([DEVELOPER]);
  });

  it('logs nothing for a member PATCH that leaves the roles as they were', async () => {
    const s = await start();
    const path = `${org}/members/${DEMO_MEMBER_IDS.developer}`;
    expectSuccess(await call(s, 'PATCH', path, { body: { assignedRoleIds: [DEMO_ROLE_IDS.developer] } }));
    expect(s.activities()).toHaveLength(0);
  });

  it('records a key disabled in the console under that person, as GET …/activities serves it', async () => {
    const s = await start();
    s.changeKeyInConsole(DEMO_OTHER_KEY_IDS.unused, { state: 'disabled' }, consoleUser('jane@example.com'));
    const key = expectSuccess<Key>(await call(s, 'GET', `${org}/keys/${DEMO_OTHER_KEY_IDS.unused}`));
    expect(key.state).toBe('disabled');
    const served = expectSuccess<Array<Record<string, unknown>>>(await call(s, 'GET', `${org}/activities`));
    expect(served).toHaveLength(1);
    expect(served[0]).toMatchObject({
      type: 'openapi_key_update',
      targetKeyId: DEMO_OTHER_KEY_IDS.unused,
      keyUpdateType: 'state-changed',
      actorType: 'user',
      actorDetails: 'jane@example.com',
    });
    expect(() => s.changeKeyInConsole(DEMO_OTHER_KEY_IDS.unused, { state: 'paused' })).toThrow(/enabled, disabled/);
    expect(() => s.changeKeyInConsole('no-such-key', { state: 'disabled' })).toThrow(/not found/);
  });

  it('replaces a member roles in the console, and refuses a role the organization lacks', async () => {
    const s = await start();
    s.changeMemberRolesInConsole(DEMO_MEMBER_IDS.billing, [DEMO_ROLE_IDS.admin], consoleUser('ada@example.com'));
    expect(s.members().find((m) => m.userId === DEMO_MEMBER_IDS.billing)?.assignedRoleIds).toStrictEqual([
      DEMO_ROLE_IDS.admin,
    ]);
    expect(s.activities().at(-1)).toMatchObject({ type: 'organization_member_update_roles', actorType: 'user' });
    expect(() => s.changeMemberRolesInConsole(DEMO_MEMBER_IDS.billing, ['nope'])).toThrow('role nope not found');
  });
});
