/**
 * The record posted once a change is applied, for any target: a service's card, with the part a
 * change wrote where it has one (its backup configuration); a member's roles; an API key's state.
 */
import type { OrganizationTarget } from '../access/target.js';
import type { ServiceRecord } from '../service/schema.js';
import { code, context, esc, header, section, type Block } from './mrkdwn.js';
import { serviceBlocks } from './service.js';

export function recordBlocks(record: ServiceRecord, title: string): Block[] {
  const target = record.organizationTarget;
  if (target) return [header(title), section(organizationTargetText(target)), context(`ID ${code(record.id)}`)];
  const blocks = serviceBlocks(record, title);
  const backups = record.parts?.backupConfiguration;
  if (!backups) return blocks;
  const start = backups.backupStartTime ? `, from ${backups.backupStartTime} UTC` : '';
  const kept = Math.round((backups.backupRetentionPeriodInHours ?? 24) / 24);
  const line = `*Backups*\nevery ${backups.backupPeriodInHours ?? 24} h${esc(start)}, kept ${kept} day${kept === 1 ? '' : 's'}`;
  return [...blocks.slice(0, -1), section(line), ...blocks.slice(-1)];
}

function organizationTargetText(target: OrganizationTarget): string {
  if (target.type === 'member') {
    const { member } = target;
    const roles = member.assignedRoles.map((role) => esc(role.roleName || role.roleId)).join(', ') || '_none_';
    return `*Member* ${esc(member.name)} (${esc(member.email)})\n*Roles*: ${roles}`;
  }
  const { key } = target;
  const expiry = key.expireAt ? esc(key.expireAt.slice(0, 10)) : 'never';
  return `*API key* ${esc(key.name)} (…${esc(key.keySuffix ?? '????')})\n*State*: ${esc(key.state)} · *Expires*: ${expiry}`;
}
