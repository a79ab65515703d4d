/**
 * A member's roles in the organization (`PATCH …/members/{userId}` with the whole role list): a
 * change whose target is a person, not a service (core/access/target.ts). `grant Admin to jane@…
 * for 2h` takes back exactly that role at the end, and only that one: a role someone else granted
 * meanwhile stays.
 */
import { echo } from '../../command/arguments.js';
import type { ArgumentReader } from '../../command/reader.js';
import type { Token } from '../../command/tokenize.js';
import type { Member, Role } from '../../access/member.js';
import type { Risk } from '../../policy/types.js';
import type { ServiceRecord } from '../../service/schema.js';
import type { ChangePlan, MemberOperation, MemberRoleIntent } from '../types.js';
import type { ChangeKindModule, Draft, KindCommand } from './kind.js';
import { sameEntries } from './kind.js';

/** The organization's system role whose grant carries the `admin-grant` risk. */
const ADMIN_ROLE = 'admin';

function parseRoleChange(
  args: Token[],
  read: ArgumentReader,
  action: 'grant' | 'revoke',
  joiner: 'to' | 'from',
): ReturnType<ArgumentReader['change']> {
  const { args: words, durationMs } =
    action === 'grant' ? read.splitDuration(args, 3) : { args, durationMs: undefined };
  const [role, word, who, ...extra] = words;
  const what = `the role and the member, like this: ${read.spec.example}`;
  if (role === undefined || word === undefined || who === undefined) return read.missing(what);
  if (word.text.toLowerCase() !== joiner)
    read.fail(`Write ${action} ROLE ${joiner} EMAIL, not ${echo(word.text)}: ${read.spec.example}`);
  read.rejectExtra(extra, `a role and a member`, 'A role name with spaces goes in quotes, like "Billing Viewer".');
  const target = read.service(who, what);
  return read.change(target, { memberRole: { action, role: role.text } }, durationMs);
}

const grant: KindCommand = {
  name: 'grant',
  usage: 'grant ROLE to EMAIL|@user [for DURATION]',
  example: 'grant Admin to dev@example.com for 2h',
  more: ['grant "Billing viewer" to dev@example.com'],
  summary: 'Request that a member of the organization be given a role, for good or for a while.',
  target: 'member',
  fixedWords: 3,
  temporaryForm: 'grant',
  parse: (args, read) => parseRoleChange(args, read, 'grant', 'to'),
};

const revoke: KindCommand = {
  name: 'revoke',
  usage: 'revoke ROLE from EMAIL|@user',
  example: 'revoke "Billing viewer" from bill@example.com',
  summary: 'Request that a member of the organization lose a role.',
  target: 'member',
  fixedWords: 3,
  parse: (args, read) => parseRoleChange(args, read, 'revoke', 'from'),
};

function memberOf(service: ServiceRecord): { member: Member; roles: Role[] } | undefined {
  const target = service.organizationTarget;
  return target?.type === 'member' ? target : undefined;
}

const roleIdsOf = (member: Member) => member.assignedRoles.map((role) => role.roleId);

/** A role by name or id, any case. */
function findRole(roles: readonly Role[], wanted: string): Role | undefined {
  const lower = wanted.trim().toLowerCase();
  return roles.find((role) => role.name.toLowerCase() === lower || role.id.toLowerCase() === lower);
}

/** Members holding the role now, from the role's actors ("user/{id}"). */
const holders = (role: Role) => role.actors.filter((actor) => actor.startsWith('user/')).length;

function plan(draft: Draft, service: ServiceRecord, wanted: MemberRoleIntent): void {
  const subject = memberOf(service);
  if (!subject) {
    draft.problems.push({ field: 'memberRole', message: 'Roles can only be granted to a member of the organization.' });
    return;
  }
  const { member, roles } = subject;
  const role = findRole(roles, wanted.role);
  if (!role) {
    const names = roles.map((r) => r.name).join(', ');
    draft.problems.push({
      field: 'memberRole',
      message: `The organization has no role ${echo(wanted.role)}. Roles: ${names}.`,
    });
    return;
  }
  const held = roleIdsOf(member);
  const has = held.includes(role.id);
  const who = member.email || member.name;
  if (wanted.action === 'grant' && has)
    return void draft.unchanged.push({ field: 'memberRole', message: `${who} already has the role ${role.name}.` });
  if (wanted.action === 'revoke' && !has)
    return void draft.unchanged.push({ field: 'memberRole', message: `${who} does not have the role ${role.name}.` });
  if (wanted.action === 'revoke' && role.name.toLowerCase() === ADMIN_ROLE && holders(role) <= 1)
    return void draft.problems.push({
      field: 'memberRole',
      message: `${who} is the organization's last Admin: grant Admin to someone else first.`,
    });
  const after = wanted.action === 'grant' ? [...held, role.id] : held.filter((id) => id !== role.id);
  // A member keeps one role at least (the console asks for one; the simulator refuses an empty list).
  if (after.length === 0)
    return void draft.problems.push({
      field: 'memberRole',
      message: `${role.name} is the only role of ${who}: grant another role first, or remove the member in the console.`,
    });
  const names = (ids: string[]) => ids.map((id) => roles.find((r) => r.id === id)?.name ?? id).join(', ') || 'none';
  draft.touched.add('memberRoles');
  draft.writes.push({
    endpoint: 'member',
    userId: member.userId,
    body: { assignedRoleIds: after },
    change: { action: wanted.action, roleId: role.id, roleName: role.name },
  });
  draft.changes.push({ field: 'memberRoles', label: 'Roles', before: names(held), after: names(after) });
}

/** The role a plan grants or revokes, as planned. */
function roleChangeOf(plan: ChangePlan): MemberOperation['change'] | undefined {
  for (const operation of plan.operations ?? []) if (operation.endpoint === 'member') return operation.change;
  return undefined;
}

function risks(plan: ChangePlan): Risk[] {
  const change = roleChangeOf(plan);
  return change?.action === 'grant' && change.roleName.toLowerCase() === ADMIN_ROLE ? ['admin-grant'] : [];
}

export const memberRoleKind: ChangeKindModule<'memberRoles'> = {
  field: 'memberRoles',
  policyName: 'member-role',
  intents: ['memberRole'],
  commands: [grant, revoke],
  read: (service) => {
    const subject = memberOf(service);
    return subject ? roleIdsOf(subject.member).sort() : null;
  },
  same: (a, b) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null),
  // Two requests for different roles of the same member both apply: only the role asked is compared.
  entriesSame: (plan, service) => {
    const change = roleChangeOf(plan);
    const now = memberOf(service);
    if (!change || !now) return !change;
    // Two revokes of Admin from two members, each made while the other still held it: the second finds no other Admin.
    const role = now.roles.find((r) => r.id === change.roleId);
    if (change.action === 'revoke' && role?.name.toLowerCase() === ADMIN_ROLE && holders(role) <= 1) return false;
    return sameEntries(
      plan.before.memberRoles ?? [],
      roleIdsOf(now.member),
      (id) => id,
      (id) => id,
      [change.roleId],
    );
  },
  touchedEntries: (plan) => {
    const change = roleChangeOf(plan);
    return change ? [change.roleId] : [];
  },
  plan(draft, service, intent) {
    if (intent.memberRole) plan(draft, service, intent.memberRole);
  },
  visible: () => true,
  undo(plan, service, reverse) {
    const change = roleChangeOf(plan);
    const now = memberOf(service);
    if (!change || !now) return;
    const has = roleIdsOf(now.member).includes(change.roleId);
    if (has === (change.action === 'grant'))
      reverse.intent.memberRole = { action: change.action === 'grant' ? 'revoke' : 'grant', role: change.roleId };
    else
      reverse.leftAlone.push(
        `The role ${change.roleName} was ${change.action === 'grant' ? 'taken back' : 'given back'} since.`,
      );
  },
  risks,
  possibleRisks: ['admin-grant'],
  temporary: {
    grants: (intent) => intent.memberRole?.action === 'grant',
    problem: () => undefined,
    // Exactly the role granted, and only it: a role someone else granted meanwhile stays.
    revert(plan, service, reverse) {
      const change = roleChangeOf(plan);
      const now = memberOf(service);
      if (!change || !now) return;
      if (roleIdsOf(now.member).includes(change.roleId))
        reverse.intent.memberRole = { action: 'revoke', role: change.roleId };
      else reverse.leftAlone.push(`The role ${change.roleName} was already taken back.`);
    },
  },
};
