/** The IP access list: entries added (with a description), re-described or removed, by source. */
import { BROAD_PREFIX, FAMILY_NAMES, isWholeFamily, parseBlock } from '../../network/cidr.js';
import type { Risk } from '../../policy/types.js';
import { ipExposure } from '../../posture/exposure.js';
import {
  IP_DESCRIPTION_MAX,
  IpSourceSchema,
  type AccessEntry,
  type ServiceRecord,
  type ServiceUpdate,
} from '../../service/schema.js';
import type { ChangeIntent, ChangePlan } from '../types.js';
import { checkIpDescription, checkIpSource } from '../../command/arguments.js';
import { textOf, type ArgumentReader } from '../../command/reader.js';
import type { Token } from '../../command/tokenize.js';
import { ACTION, fitsValue, input, multiSelect, option, selectedValues, textValue } from '../../render/form-inputs.js';
import { LIMITS } from '../../render/mrkdwn.js';
import { z } from 'zod';
import { kindDrift, type DriftFinding, type UpdateEffect } from './drift-parts.js';
import type { KindForm } from './form-parts.js';
import { sameEntries, type ChangeKindModule, type Draft, type KindCommand, type PlannedReverse } from './kind.js';

const ipAdd: KindCommand = {
  name: 'ip add',
  usage: 'ip add SERVICE SOURCE [DESCRIPTION...] [for DURATION]',
  example: 'ip add orders-prod 192.0.2.0/24 office VPN',
  more: ['ip add orders-prod 203.0.113.7 vendor at tuesday 09:00 for 3h'],
  summary: 'Request access for an IP address or CIDR block; with for 30m, 2h or 3d the bot takes it back then.',
  bounds: [`A description has at most ${IP_DESCRIPTION_MAX} characters.`],
  fixedWords: 2,
  temporaryForm: 'ip add',
  groupAsk: 'Say whether to add or remove an IP access list entry',
  parse(words: Token[], read: ArgumentReader) {
    const { args, durationMs } = read.splitDuration(words, 2);
    const [service, source, ...descriptionWords] = args;
    const what = 'the service and the IP address or CIDR block';
    const value = read.service(service, what);
    if (source === undefined) read.missing(what);
    const entry: { source: string; description?: string } = { source: read.must(checkIpSource(source.text)) };
    if (descriptionWords.length > 0) {
      entry.description = read.must(checkIpDescription(textOf(descriptionWords).join(' ')));
    }
    return read.change(value, { ipAdd: [entry] }, durationMs);
  },
};

const ipRemove: KindCommand = {
  name: 'ip remove',
  usage: 'ip remove SERVICE SOURCE',
  example: 'ip remove orders-prod 203.0.113.0/24',
  summary: 'Request that an entry be taken off the IP access list.',
  fixedWords: 2,
  parse(args: Token[], read: ArgumentReader) {
    const [service, source, ...extra] = args;
    const what = 'the service and the IP address or CIDR block to remove';
    const value = read.service(service, what);
    if (source === undefined) read.missing(what);
    const checked = read.must(checkIpSource(source.text));
    read.rejectExtra(extra, 'one service and one source (remove entries one at a time)');
    return read.change(value, { ipRemove: [checked] });
  },
};

const entriesOf = (service: ServiceRecord): AccessEntry[] =>
  (service.ipAccessList ?? []).map((e) => ({ source: e.source, description: e.description ?? '' }));

function accessKey(entries: AccessEntry[] | null | undefined): string {
  return (entries ?? [])
    .map((e) => `${e.source}\u0000${e.description ?? ''}`)
    .sort()
    .join('\u0001');
}

/** The form's entries to add, one a line: a source, then an optional description. */
export function parseIpLines(text: string): Array<{ source: string; description?: string }> {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const [source = '', ...rest] = line.split(/\s+/);
      const description = rest.join(' ');
      return description ? { source, description } : { source };
    });
}

const ipAccessForm: KindForm = {
  blockIds: { ipAdd: 'ip_add', ipRemove: 'ip_remove' },
  problemBlock: { ipRemove: 'ip_remove' },
  blocks: (service) => [
    input(
      'ip_add',
      'IP access entries to add',
      {
        type: 'plain_text_input',
        action_id: ACTION,
        multiline: true,
        max_length: LIMITS.textInput,
        placeholder: { type: 'plain_text', text: '203.0.113.7/32 office VPN' },
      },
      { optional: true, hint: 'One entry a line: an address or CIDR block, then an optional description.' },
    ),
    ...multiSelect(
      'ip_remove',
      'IP access entries to remove',
      (service.ipAccessList ?? [])
        .filter((e) => fitsValue(e.source))
        .map((e) => option(e.description ? `${e.source} ${e.description}` : e.source, e.source)),
    ),
  ],
  read(values) {
    const adds = parseIpLines(textValue(values, 'ip_add') ?? '');
    const removes = selectedValues(values, 'ip_remove');
    return {
      intent: { ...(adds.length > 0 ? { ipAdd: adds } : {}), ...(removes.length > 0 ? { ipRemove: removes } : {}) },
    };
  },
};

// ---------------------------------------------------------------------------------------------
// Drift: entries kept as [source, description] pairs, sorted by source

const IP_ACTIVITY = ['service_update_ip_access_list'];

/** Removal matches on source in the API, so a source appears once; the last entry wins. */
function accessPairs(service: ServiceRecord): Array<[string, string]> | undefined {
  if (service.ipAccessList === undefined) return undefined;
  const bySource = new Map(service.ipAccessList.map((e) => [e.source, e.description ?? ''] as const));
  return [...bySource.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

const entryText = (source: string, description: string) => (description ? `${source} (${description})` : source);

function ipDrift(before: Array<[string, string]>, now: Array<[string, string]>): DriftFinding[] {
  const [was, is] = [new Map(before), new Map(now)];
  const label = 'IP access';
  const findings: DriftFinding[] = [];
  for (const [source, description] of is) {
    const old = was.get(source);
    if (old === undefined)
      findings.push({
        kind: 'ip-added',
        label,
        text: `IP access: + ${entryText(source, description)}`,
        subject: source,
        ipDescription: description,
      });
    else if (old !== description)
      findings.push({
        kind: 'ip-description-changed',
        label,
        text: `IP access entry ${source}: description "${old}" → "${description}"`,
        subject: source,
        ipDescription: description,
      });
  }
  for (const [source, description] of was) {
    if (!is.has(source))
      findings.push({
        kind: 'ip-removed',
        label,
        text: `IP access: − ${entryText(source, description)}`,
        subject: source,
      });
  }
  return findings;
}

function ipEffects(update: ServiceUpdate): UpdateEffect[] {
  const effects: UpdateEffect[] = [];
  const added = update.ipAccessList?.add ?? [];
  const addedSources = new Set(added.map((entry) => entry.source));
  for (const entry of update.ipAccessList?.remove ?? []) {
    // remove + add of one source is how the bot re-describes an entry: not a removal.
    if (!addedSources.has(entry.source)) effects.push({ kind: 'ip-removed', subject: entry.source });
  }
  const removedSources = new Set((update.ipAccessList?.remove ?? []).map((entry) => entry.source));
  for (const entry of added) {
    const kind = removedSources.has(entry.source) ? 'ip-description-changed' : 'ip-added';
    effects.push({ kind, subject: entry.source, ipDescription: entry.description ?? '' });
  }
  return effects;
}

/** The API may write 198.51.100.7 back as 198.51.100.7/32: the same block either way. */
function sameBlock(a: string, b: string): boolean {
  if (a === b) return true;
  const [x, y] = [parseBlock(a), parseBlock(b)];
  return x !== undefined && y !== undefined && x.family === y.family && x.first === y.first && x.prefix === y.prefix;
}

const ipAccessDrift = kindDrift({
  key: 'ipAccessList',
  schema: z.array(z.tuple([z.string(), z.string()])),
  read: accessPairs,
  diff: ipDrift,
  effects: ipEffects,
  activityTypes: { 'ip-added': IP_ACTIVITY, 'ip-removed': IP_ACTIVITY, 'ip-description-changed': IP_ACTIVITY },
  explains: (effect, finding) =>
    sameBlock(effect.subject, finding.subject) &&
    (finding.kind === 'ip-removed' || (effect.ipDescription ?? '') === (finding.ipDescription ?? '')),
});

export const ipAccessKind: ChangeKindModule<'ipAccessList'> = {
  field: 'ipAccessList',
  policyName: 'ip-access',
  intents: ['ipAdd', 'ipRemove'],
  commands: [ipAdd, ipRemove],
  form: ipAccessForm,
  drift: ipAccessDrift,
  read: entriesOf,
  same: (a, b) => accessKey(a) === accessKey(b),
  entriesSame: ipEntriesSame,
  touchedEntries: touchedSources,
  plan: planIpAccess,
  visible(update, service) {
    const sources = new Map(entriesOf(service).map((e) => [e.source, e.description ?? '']));
    const adds = update.ipAccessList?.add ?? [];
    return (
      (update.ipAccessList?.remove ?? []).every(
        (e) => !sources.has(e.source) || adds.some((a) => a.source === e.source),
      ) && adds.every((e) => sources.get(e.source) === (e.description ?? ''))
    );
  },
  undo: undoIpAccess,
  risks: ipRisks,
  possibleRisks: ['world-open', 'broad-ip', 'last-ip-removed'],
  temporary: {
    grants: (intent) => intent.ipRemove === undefined,
    problem(plan) {
      const listed = new Set((plan.before.ipAccessList ?? []).map((entry) => entry.source));
      const relisted = (plan.update.ipAccessList?.add ?? []).find((entry) => listed.has(entry.source));
      return relisted
        ? `${relisted.source} is already in the IP access list, so a temporary grant could not take it back without removing the existing entry.`
        : undefined;
    },
    /** Removes the entries it added that are still listed with that source. */
    revert(plan, service, reverse) {
      const listed = new Set(entriesOf(service).map((entry) => entry.source));
      const added = plan.update.ipAccessList?.add ?? [];
      const stillThere = added.filter((entry) => listed.has(entry.source)).map((entry) => entry.source);
      if (stillThere.length > 0) reverse.intent.ipRemove = stillThere;
      for (const entry of added.filter((e) => !listed.has(e.source)))
        reverse.leftAlone.push(
          `${entry.source} is no longer in the IP access list (someone removed it), so there was nothing to remove.`,
        );
    },
  },
};

function touchedSources(plan: ChangePlan): string[] {
  const body = plan.update.ipAccessList;
  return [...(body?.add ?? []), ...(body?.remove ?? [])].map((entry) => entry.source);
}

/**
 * The entries this request adds or removes read as when it was made, and the list as it is now
 * gives the change no risk it did not show (two removals that together empty the list: stale).
 */
function ipEntriesSame(plan: ChangePlan, service: ServiceRecord): boolean {
  const now = entriesOf(service);
  const description = (entry: AccessEntry) => entry.description ?? '';
  if (!sameEntries(plan.before.ipAccessList ?? [], now, (e) => e.source, description, touchedSources(plan)))
    return false;
  const shown = new Set(ipRisks(plan));
  return ipRisks({ ...plan, before: { ...plan.before, ipAccessList: now } }).every((risk) => shown.has(risk));
}

function planIpAccess(draft: Draft, service: ServiceRecord, intent: ChangeIntent): void {
  const current = entriesOf(service);
  const adds = validIpAdds(draft, intent.ipAdd ?? []);
  const removes = validIpRemoves(draft, current, intent.ipRemove ?? []);
  const conflict = adds.find((entry) => removes.includes(entry.source));
  if (conflict) {
    draft.problems.push({ field: 'ipAdd', message: `${conflict.source} is both added and removed; choose one.` });
    return;
  }
  const currentBySource = new Map(current.map((entry) => [entry.source, entry.description ?? '']));
  const effectiveAdds = adds.filter((entry) => currentBySource.get(entry.source) !== (entry.description ?? ''));
  if (effectiveAdds.length === 0 && removes.length === 0) return;

  // A new description for a listed source is sent as remove + add (the API removes first), so it
  // does not rely on add replacing an existing entry, which the API does not promise.
  const redescribed = effectiveAdds.filter((entry) => currentBySource.has(entry.source)).map((entry) => entry.source);
  const bodyRemoves = [...removes, ...redescribed];
  draft.update.ipAccessList = {
    ...(bodyRemoves.length > 0 ? { remove: bodyRemoves.map((source) => ({ source })) } : {}),
    ...(effectiveAdds.length > 0 ? { add: effectiveAdds } : {}),
  };
  draft.touched.add('ipAccessList');
  for (const source of removes)
    draft.changes.push({
      field: 'ipAccessList',
      label: 'IP access',
      before: describeEntry(source, currentBySource.get(source)),
      after: 'removed',
    });
  for (const entry of effectiveAdds) {
    const existing = currentBySource.get(entry.source);
    draft.changes.push({
      field: 'ipAccessList',
      label: 'IP access',
      before: existing === undefined ? 'absent' : describeEntry(entry.source, existing),
      after: describeEntry(entry.source, entry.description),
    });
  }
  ipWarnings(draft, current, effectiveAdds, removes);
}

function validIpAdds(
  draft: Draft,
  wanted: NonNullable<ChangeIntent['ipAdd']>,
): Array<{ source: string; description?: string }> {
  const valid: Array<{ source: string; description?: string }> = [];
  for (const entry of wanted) {
    const source = IpSourceSchema.safeParse(entry.source);
    if (!source.success) {
      draft.problems.push({
        field: 'ipAdd',
        message: `"${entry.source}" is not an IP address or CIDR block. Write it like 203.0.113.7 or 10.0.0.0/8.`,
      });
      continue;
    }
    const description = entry.description?.trim();
    if (description && description.length > IP_DESCRIPTION_MAX) {
      draft.problems.push({
        field: 'ipAdd',
        message: `The description of ${source.data} is longer than ${IP_DESCRIPTION_MAX} characters.`,
      });
      continue;
    }
    valid.push(description ? { source: source.data, description } : { source: source.data });
  }
  return valid;
}

function validIpRemoves(draft: Draft, current: AccessEntry[], wanted: string[]): string[] {
  const present = new Set(current.map((entry) => entry.source));
  const valid: string[] = [];
  for (const raw of wanted) {
    const source = raw.trim();
    if (!present.has(source)) {
      draft.problems.push({
        field: 'ipRemove',
        message: `${source} is not in the service's IP access list, so there is nothing to remove.`,
      });
    } else if (!valid.includes(source)) {
      valid.push(source);
    }
  }
  return valid;
}

function ipWarnings(draft: Draft, current: AccessEntry[], adds: Array<{ source: string }>, removes: string[]): void {
  for (const entry of adds) {
    if (isWholeFamily(entry.source)) {
      draft.warnings.push(`${entry.source} opens the service to the whole internet.`);
    }
  }
  const remaining = new Set(current.map((entry) => entry.source));
  for (const source of removes) remaining.delete(source);
  for (const entry of adds) remaining.add(entry.source);
  if (remaining.size === 0) {
    draft.warnings.push('This removes the last IP access entry: no client will be able to connect to the service.');
  }
  draft.warnings.push(
    ...unionWarnings(
      [...remaining],
      adds.map((entry) => entry.source),
    ),
  );
}

/**
 * A /0 split into pieces (0.0.0.0/1 + 128.0.0.0/1, four /2s...) opens the service just the same,
 * and a single very broad entry nearly does: both are judged on the list as it will be.
 */
function unionWarnings(resulting: string[], added: string[]): string[] {
  const exposure = ipExposure(resulting);
  const addedFamilies = new Set(added.map((source) => parseBlock(source)?.family));
  const explainedByAddedWhole = new Set(added.filter(isWholeFamily).map((source) => parseBlock(source)?.family));
  const open = exposure.open
    .filter((o) => addedFamilies.has(o.family) && !explainedByAddedWhole.has(o.family))
    .map(
      (o) =>
        `The IP access list will admit every ${FAMILY_NAMES[o.family]} address (${o.named}): this opens the service to the whole internet.`,
    );
  const broad = exposure.broad
    .filter((b) => added.includes(b.source))
    .map(
      (b) =>
        `${b.source} admits millions of addresses (${FAMILY_NAMES[b.family]} blocks shorter than /${BROAD_PREFIX[b.family]} are very broad).`,
    );
  return [...open, ...broad];
}

function describeEntry(source: string, description: string | undefined): string {
  return description ? `${source} (${description})` : source;
}

/** Added entries come off (or get their old description back), removed ones go back on. */
function undoIpAccess(plan: ChangePlan, service: ServiceRecord, reverse: PlannedReverse): void {
  const listedNow = new Map(entriesOf(service).map((e) => [e.source, e.description ?? '']));
  const listedBefore = new Map((plan.before.ipAccessList ?? []).map((e) => [e.source, e.description ?? '']));
  const added = plan.update.ipAccessList?.add ?? [];
  const addedSources = new Set(added.map((e) => e.source));
  const ipAdd: Array<{ source: string; description?: string }> = [];
  const ipRemove: string[] = [];
  for (const entry of added) {
    const previous = listedBefore.get(entry.source);
    if (listedNow.get(entry.source) !== (entry.description ?? '')) {
      reverse.leftAlone.push(`${entry.source} is no longer listed as the change left it.`);
    } else if (previous === undefined) ipRemove.push(entry.source);
    else ipAdd.push(previous ? { source: entry.source, description: previous } : { source: entry.source });
  }
  for (const { source } of plan.update.ipAccessList?.remove ?? []) {
    if (addedSources.has(source)) continue;
    if (listedNow.has(source)) reverse.leftAlone.push(`${source} is already back in the IP access list.`);
    else {
      const description = listedBefore.get(source);
      ipAdd.push(description ? { source, description } : { source });
    }
  }
  if (ipAdd.length > 0) reverse.intent.ipAdd = ipAdd;
  if (ipRemove.length > 0) reverse.intent.ipRemove = ipRemove;
}

function ipRisks(plan: ChangePlan): Risk[] {
  const risks: Risk[] = [];
  const list = plan.update.ipAccessList;
  if (list === undefined) return risks;
  const adds = list.add ?? [];
  const remaining = new Set((plan.before.ipAccessList ?? []).map((entry) => entry.source));
  for (const entry of list.remove ?? []) remaining.delete(entry.source);
  for (const entry of adds) remaining.add(entry.source);
  // The same detection as the request's warnings and posture: a /0, or pieces that together
  // cover an address family, and single entries shorter than /8 (IPv4) or /16 (IPv6).
  const exposure = ipExposure([...remaining]);
  const added = new Set(adds.map((entry) => entry.source));
  if (exposure.open.some((open) => open.sources.some((source) => added.has(source)))) risks.push('world-open');
  if (adds.some((entry) => isBroad(entry.source))) risks.push('broad-ip');
  if (plan.before.ipAccessList !== undefined && remaining.size === 0) risks.push('last-ip-removed');
  return risks;
}

/** IPv4 shorter than /8 or IPv6 shorter than /16 (a /0 included) admits a large part of the internet. */
function isBroad(source: string): boolean {
  const match = /\/(\d+)$/.exec(source.trim());
  if (!match) return false;
  const prefix = Number(match[1]);
  return source.includes(':') ? prefix < 16 : prefix < 8;
}
