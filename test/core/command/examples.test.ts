/**
 * Every example in help works as written in the demo organization: the services and tags it names
 * exist there, and each change example plans against the demo service without a problem.
 */
import { describe, expect, it } from 'vitest';
import { ServiceRecordSchema } from '../../../src/core/service/schema.js';
import { planChange } from '../../../src/core/change/plan.js';
import { localizeIntent, resolveQueryKeys } from '../../../src/core/change/kinds/index.js';
import { DEMO_BACKUP_CONFIGURATIONS, DEMO_OTHER_KEY_IDS, demoAccess } from '../../../src/simulator/seed.js';
import { keyView } from '../../../src/simulator/access.js';
import { parseApiKeys } from '../../../src/core/access/api-key.js';
import { DEFAULT_BACKUP_CONFIGURATION } from '../../../src/simulator/backups.js';

const demoBackupConfiguration = (id: string) => ({
  ...(DEMO_BACKUP_CONFIGURATIONS[id] ?? DEFAULT_BACKUP_CONFIGURATION),
});
import { COMMAND_CATALOGUE } from '../../../src/core/command/catalogue.js';
import { parseCommand } from '../../../src/core/command/parse.js';
import { matchesTagFilters } from '../../../src/core/summary/tags.js';
import { demoServices } from '../../../src/simulator/seed.js';

/** The demo organization's API keys, as GET …/keys answers them (query-endpoint examples name them). */
const seed = demoAccess('de7e0000-0000-4000-8000-00000000b07a', 'demo-secret-abcd', Date.now());
const demoKeys = parseApiKeys(seed.keys.map((key) => keyView(key, seed.roles))).keys;
/** A Query API endpoint on, as the console might have left it, so that both on and off examples change something. */
const demoQueryEndpoint = {
  id: 'qe-1',
  roles: ['sql_console_read_only'],
  openApiKeys: [DEMO_OTHER_KEY_IDS.neverExpires],
  allowedOrigins: '',
};

const demo = demoServices().map((record) => ServiceRecordSchema.parse(record));
const byName = (name: string) => demo.find((service) => service.name === name);

describe('help examples in the demo organization', () => {
  it.each(COMMAND_CATALOGUE.map((spec) => [spec.example]))('%s works as written', (example) => {
    const command = parseCommand(example);
    expect(command.kind).not.toBe('invalid');
    if (command.kind === 'change') {
      const service = byName(command.service);
      expect(service, command.service).toBeDefined();
      if (service === undefined) return;
      // The parts of the service a change reads (its backup configuration…) as the demo organization has them.
      const parts = {
        backupConfiguration: demoBackupConfiguration(service.id),
        serviceQueryEndpoint: demoQueryEndpoint,
      };
      const keyed = resolveQueryKeys(command.intent, demoKeys);
      expect(keyed.ok ? '' : keyed.text).toBe('');
      if (!keyed.ok) return;
      const plan = planChange({ ...service, parts }, localizeIntent(keyed.intent, 'UTC', Date.now()));
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
