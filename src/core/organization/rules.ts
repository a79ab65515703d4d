/**
 * A channel's guardrails as decisions: may this command run here, may this change be asked for or
 * approved here, does the channel see this service. Pure; the sentences are in render/organizations.ts.
 */
import type { Command } from '../command/parse.js';
import { KINDS, kindOfIntent } from '../change/kinds/index.js';
import type { ChangeIntent, ChangePlan } from '../change/types.js';
import type { ChangeKind } from '../policy/types.js';
import type { ServiceRecord } from '../service/schema.js';
import type { ChannelRules, ServiceScope } from './types.js';

/** Command words an `allow` list may name besides change kinds; `help` is always allowed. */
export const COMMAND_WORDS = [
  'list',
  'show',
  'backups',
  'health',
  'query-endpoint',
  'upgrade-window',
  'scaling-schedule',
  'edit',
  'pending',
  'temporary',
  'history',
  'policy',
  'summary',
  'schedule',
  'cost',
  'keys',
  'members',
  'roles',
] as const;
export type CommandWord = (typeof COMMAND_WORDS)[number];

export function intentKinds(intent: ChangeIntent): ChangeKind[] {
  const kinds = (Object.keys(intent) as Array<keyof ChangeIntent>)
    .filter((key) => {
      const part: unknown = intent[key];
      return part !== undefined && !(Array.isArray(part) && part.length === 0);
    })
    .flatMap((key) => kindOfIntent(key)?.policyName ?? []);
  return [...new Set(kinds)];
}

export function planKinds(plan: Pick<ChangePlan, 'changes'>): ChangeKind[] {
  return [...new Set(plan.changes.map((change) => KINDS[change.field].policyName))];
}

/** The `allow` word a command needs; undefined for those always allowed (help, unknown words, usage errors). */
export function commandWord(command: Command): CommandWord | 'change' | undefined {
  switch (command.kind) {
    case 'help':
    case 'unknown':
    case 'invalid':
      return undefined;
    case 'change':
    case 'breakglass':
      return 'change';
    case 'schedule add':
    case 'schedule list':
    case 'schedule remove':
      return 'schedule';
    default:
      return command.kind;
  }
}

export type Allowance = { allowed: true } | { allowed: false; word: string };

/** A command here: its word must be allowed, and a change command every kind it touches. */
export function commandAllowance(rules: ChannelRules, command: Command): Allowance {
  if (command.kind === 'change') return kindsAllowance(rules, intentKinds(command.intent));
  if (command.kind === 'breakglass') return kindsAllowance(rules, intentKinds(command.change.intent));
  const word = commandWord(command);
  if (word === undefined || word === 'change' || rules.allow === undefined) return { allowed: true };
  return rules.allow.includes(word) ? { allowed: true } : { allowed: false, word };
}

export function kindsAllowance(rules: ChannelRules, kinds: readonly ChangeKind[]): Allowance {
  if (rules.allow === undefined) return { allowed: true };
  const refused = kinds.find((kind) => !rules.allow?.includes(kind));
  return refused === undefined ? { allowed: true } : { allowed: false, word: refused };
}

/** Whether a channel with these rules sees (and may change) this service. */
export function inScope(
  scope: ServiceScope | undefined,
  service: Pick<ServiceRecord, 'id' | 'name' | 'tags'>,
): boolean {
  if (scope === undefined) return true;
  if (scope.names && !scope.names.some((name) => name === service.name || name === service.id)) return false;
  if (scope.tags) {
    const tags = new Map((service.tags ?? []).map((tag) => [tag.key, tag.value ?? '']));
    for (const [key, value] of Object.entries(scope.tags)) {
      if (!tags.has(key) || (value !== '*' && tags.get(key) !== value)) return false;
    }
  }
  return true;
}
