/** `members [ROLE]` and `roles`: who is in the organization with which roles, and which roles exist. */
import type { Member, Role } from '../access/member.js';
import { code, context, esc, header, packLines, section, slackDate, type Block } from './mrkdwn.js';

function memberLine(member: Member): string {
  const roles = member.assignedRoles.map((role) => esc(role.roleName)).join(', ') || 'no role';
  const joined = Date.parse(member.joinedAt ?? '');
  const since = Number.isNaN(joined) ? '' : ` · joined ${slackDate(joined, '{date_short_pretty}')}`;
  return `• *${esc(member.name) || code(member.userId)}* ${esc(member.email)} · ${roles}${since}`;
}

export function membersBlocks(members: readonly Member[], role: string | undefined, roles: readonly Role[]): Block[] {
  const title = role === undefined ? 'Members' : `Members with the role ${role}`;
  if (members.length === 0) {
    const known = roles.map((r) => code(r.name)).join(', ');
    return [
      section(
        role === undefined
          ? 'The organization has no members the bot can see.'
          : `No member has the role ${code(role)}.${known ? ` The roles are ${known}.` : ''}`,
      ),
    ];
  }
  return [
    header(`${title} (${members.length})`),
    ...packLines(members.map(memberLine), 20, (n) => `…and ${n} more`),
    context('Roles are changed in the ClickHouse Cloud console; `roles` lists them.'),
  ];
}

export function rolesBlocks(roles: readonly Role[]): Block[] {
  if (roles.length === 0) return [section('The organization has no roles the bot can see.')];
  const holders = (role: Role, kind: string) => role.actors.filter((actor) => actor.startsWith(`${kind}/`)).length;
  const count = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;
  const lines = roles.map(
    (role) =>
      `• *${esc(role.name)}* (${esc(role.type)}) · ${count(holders(role, 'user'), 'member')}, ${count(holders(role, 'apiKey'), 'API key')}`,
  );
  return [header(`Roles (${roles.length})`), ...packLines(lines, 20, (n) => `…and ${n} more`)];
}
