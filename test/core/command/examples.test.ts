/**
 * Every example in help works as written in the demo organization: the services and tags it names
 * exist there, and each change example plans against the demo service without a problem.
 */
import { describe, expect, it } from 'vitest';
import { ServiceRecordSchema } from '../../../src/core/service/schema.js';
import { planChange } from '../../../src/core/change/plan.js';
import { localizeIntent, resolveQueryKeys } from '../../../src/core/change/kinds/index.js';
import { DEMO_BACKUP_CONFIGURATIONS, DEMO_OTHER_KEY_IDS, demoAccess } from '../../../src/simulator/seed.js';
import { DEFAULT_BACKUP_CONFIGURATION } from '../../../src/simulator/backups.js';
import { keyView, memberView, roleView } from '../../../src/simulator/access.js';
import { parseApiKeys } from '../../../src/core/access/api-key.js';
import { parseMembers, parseRoles } from '../../../src/core/access/member.js';
import { findKey, findMember, keyRecord, memberRecord } from '../../../src/core/change/target-records.js';
import type { ServiceRecord } from '../../../src/core/service/schema.js';
import { COMMAND_CATALOGUE } from '../../../src/core/command/catalogue.js';
import { parseCommand } from '../../../src/core/command/parse.js';
import { matchesTagFilters } from '../../../src/core/summary/tags.js';
import { demoServices } from '../../../src/simulator/seed.js';

/** A Query API endpoint on, as the console might have left it, so that both on and off examples change something. */
const demoQueryEndpoint = {
  id: 'qe-1',
  roles: ['sql_console_read_only'],
  openApiKeys: [DEMO_OTHER_KEY_IDS.neverExpires],
  allowedOrigins: '',
};

const demo = demoServices().map((record) => ServiceRecordSchema.parse(record));

const demoBackupConfiguration = (id: string) => ({
  ...(DEMO_BACKUP_CONFIGURATIONS[id] ?? DEFAULT_BACKUP_CONFIGURATION),
});

/** The demo organization's members and keys, as the bot reads them. */
const access = demoAccess('demo-key', 'demo-secret-abcd', Date.now());
const roles = parseRoles(access.roles.map((role) => roleView(role, 'org', access.members, access.keys))).items;
const members = parseMembers(access.members.map((member) => memberView(member, access.roles))).items;
const keys = parseApiKeys(access.keys.map((key) => keyView(key, access.roles))).keys;

/** What a change example names: a service, or a member or key for the commands on those. */
function targetOf(kind: 'member' | 'apiKey' | undefined, query: string): ServiceRecord | undefined {
  if (kind === 'member') {
    const found = findMember(members, query);
    return found.ok ? memberRecord(found.value, roles) : undefined;
  }
  if (kind === 'apiKey') {
    const found = findKey(keys, query);
    return found.ok ? keyRecord(found.value, roles, 'demo-key') : undefined;
  }
  const service = byName(query);
  // The parts of the service a change reads (its backup configuration…) as the demo organization has them.
  const parts = {
    backupConfiguration: demoBackupConfiguration(service?.id ?? ''),
    upgradeWindow: null,
    scalingSchedule: null,
    serviceQueryEndpoint: demoQueryEndpoint,
  };
  return service && { ...service, parts };
}
const byName = (name: string) => demo.find((service) => service.name === name);

describe('help examples in the demo organization', () => {
  it.each(COMMAND_CATALOGUE.map((spec) => [spec.example]))('%s works as written', (example) => {
    const command = parseCommand(example);
    expect(command.kind).not.toBe('invalid');
    if (command.kind === 'change') {
      const target = targetOf(command.target, command.service);
      expect(target, command.service).toBeDefined();
      if (target === undefined) return;
      // query-endpoint names API keys: looked up as filing does.
      const keyed = resolveQueryKeys(command.intent, keys);
      expect(keyed.ok ? '' : keyed.text).toBe('');
      if (!keyed.ok) return;
      const plan = planChange(target, localizeIntent(keyed.intent, 'UTC', Date.now()));
      expect(plan.ok ? [] : plan.problems).toStrictEqual([]);
    }
    if (
      command.kind === 'show' ||
      command.kind === 'edit' ||
      (command.kind === 'history' && command.service !== undefined)
    ) {
      expect(byName(command.service ?? '')).toBeDefined();
    }
    if (command.kind === 'list' || command.kind === 'summary' || command.kind === 'schedule add') {
      expect(demo.filter((service) => matchesTagFilters(service, command.filters)).length).toBeGreaterThan(0);
    }
    if (command.kind === 'cost') {
      if (command.service !== undefined) expect(byName(command.service)).toBeDefined();
      expect(demo.filter((service) => matchesTagFilters(service, command.filters)).length).toBeGreaterThan(0);
    }
    if (command.kind === 'schedule remove') expect(command.id).toMatch(/^sch-[0-9a-f]{6}$/);
  });

  it('gives every demo service a distinct short id', () => {
    expect(new Set(demo.map((service) => service.id.slice(0, 8))).size).toBe(demo.length);
  });
});
