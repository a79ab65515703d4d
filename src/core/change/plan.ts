/**
 * Turns what a person asked for into the exact update the API will receive, checked against the
 * service as it is: invalid input is refused with a sentence, parts that would change nothing are
 * dropped, and a request that changes nothing at all is refused.
 */
import {
  IP_DESCRIPTION_MAX,
  IpSourceSchema,
  isTagKey,
  isTagValue,
  ServiceNameSchema,
  TAG_EDITS_MAX,
  type AccessEntry,
  type OutgoingTag,
  type ServiceRecord,
  type ServiceUpdate,
} from '../service/schema.js';
import { BROAD_PREFIX, FAMILY_NAMES, isWholeFamily, parseBlock } from '../network/cidr.js';
import { ipExposure } from '../posture/exposure.js';
import { currentState, mayLeaveDefaultChannel } from './state.js';
import type { ChangeIntent, ChangePlan, FieldChange, TouchedState } from './types.js';

const TDE_KEY_ID_MAX = 256;

export type PlanResult = { ok: true; plan: ChangePlan } | { ok: false; problems: PlanProblem[] };

/** `field` names the modal input the problem belongs to, so the modal can show it inline. */
export interface PlanProblem {
  field: keyof ChangeIntent | 'request';
  message: string;
}

interface Draft {
  update: ServiceUpdate;
  changes: FieldChange[];
  warnings: string[];
  problems: PlanProblem[];
  touched: Set<keyof TouchedState>;
}

export function planChange(service: ServiceRecord, intent: ChangeIntent): PlanResult {
  const draft: Draft = { update: {}, changes: [], warnings: [], problems: [], touched: new Set() };
  const now = currentState(service);
  planName(draft, now.name ?? '', intent.name);
  planReleaseChannel(draft, service, intent.releaseChannel);
  planMysql(draft, now.mysqlEndpoint ?? false, intent.mysqlEndpoint);
  planIpAccess(draft, now.ipAccessList ?? [], intent);
  planPrivateEndpoints(draft, service, intent);
  planTdeKey(draft, service, intent.tdeKeyId);
  planTags(draft, now.tags ?? [], intent);

  if (draft.problems.length > 0) return { ok: false, problems: draft.problems };
  if (draft.changes.length === 0) {
    return {
      ok: false,
      problems: [{ field: 'request', message: 'This request changes nothing: the service already looks like that.' }],
    };
  }
  const before: TouchedState = {};
  for (const field of draft.touched) Object.assign(before, { [field]: now[field] });
  return {
    ok: true,
    plan: {
      serviceId: service.id,
      serviceName: service.name,
      update: draft.update,
      changes: draft.changes,
      warnings: draft.warnings,
      before,
    },
  };
}

function planName(draft: Draft, current: string, wanted: string | undefined): void {
  if (wanted === undefined) return;
  const parsed = ServiceNameSchema.safeParse(wanted);
  if (!parsed.success) {
    draft.problems.push({ field: 'name', message: nameProblem(wanted, parsed.error.issues[0]?.message) });
    return;
  }
  if (parsed.data === current) return;
  draft.update.name = parsed.data;
  draft.touched.add('name');
  draft.changes.push({ field: 'name', label: 'Name', before: current, after: parsed.data });
}

function nameProblem(wanted: string, reason: string | undefined): string {
  const length = [...wanted.trim()].length;
  if (length > 50) return `The new name has ${length} characters; the limit is 50.`;
  return `The new name ${reason ?? 'is not valid'}.`;
}

function planReleaseChannel(draft: Draft, service: ServiceRecord, wanted: ChangeIntent['releaseChannel']): void {
  if (wanted === undefined || wanted === service.releaseChannel) return;
  if (wanted !== 'default' && !mayLeaveDefaultChannel(service)) {
    draft.problems.push({
      field: 'releaseChannel',
      message: `Development services stay on the default release channel; only production and dedicated services can switch to ${wanted}.`,
    });
    return;
  }
  draft.update.releaseChannel = wanted;
  draft.touched.add('releaseChannel');
  draft.changes.push({
    field: 'releaseChannel',
    label: 'Release channel',
    before: service.releaseChannel ?? 'unknown',
    after: wanted,
  });
}

function planMysql(draft: Draft, enabled: boolean, wanted: boolean | undefined): void {
  if (wanted === undefined || wanted === enabled) return;
  draft.update.endpoints = [{ protocol: 'mysql', enabled: wanted }];
  draft.touched.add('mysqlEndpoint');
  draft.changes.push({ field: 'mysqlEndpoint', label: 'MySQL endpoint', before: onOff(enabled), after: onOff(wanted) });
  if (wanted)
    draft.warnings.push('The MySQL endpoint will be opened: MySQL clients will be able to connect to this service.');
}

const onOff = (value: boolean) => (value ? 'on' : 'off');

function planIpAccess(draft: Draft, current: AccessEntry[], intent: ChangeIntent): void {
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

function planPrivateEndpoints(draft: Draft, service: ServiceRecord, intent: ChangeIntent): void {
  const attached = new Set(service.privateEndpointIds ?? []);
  const available = new Set(service.availablePrivateEndpointIds ?? []);
  const attach: string[] = [];
  const detach: string[] = [];
  for (const id of unique(intent.privateEndpointAttach ?? [])) {
    if (attached.has(id)) continue;
    if (!available.has(id)) {
      draft.problems.push({
        field: 'privateEndpointAttach',
        message: `Private endpoint ${id} is not available to this service${available.size > 0 ? `; available: ${[...available].join(', ')}` : ''}.`,
      });
    } else attach.push(id);
  }
  for (const id of unique(intent.privateEndpointDetach ?? [])) {
    if (!attached.has(id)) {
      draft.problems.push({
        field: 'privateEndpointDetach',
        message: `Private endpoint ${id} is not attached to this service.`,
      });
    } else detach.push(id);
  }
  if (attach.length === 0 && detach.length === 0) return;
  draft.update.privateEndpointIds = {
    ...(detach.length > 0 ? { remove: detach } : {}),
    ...(attach.length > 0 ? { add: attach } : {}),
  };
  draft.touched.add('privateEndpointIds');
  for (const id of detach)
    draft.changes.push({ field: 'privateEndpointIds', label: 'Private endpoint', before: id, after: 'detached' });
  for (const id of attach)
    draft.changes.push({ field: 'privateEndpointIds', label: 'Private endpoint', before: 'not attached', after: id });
}

const unique = (values: string[]) => [...new Set(values.map((v) => v.trim()).filter(Boolean))];

function planTdeKey(draft: Draft, service: ServiceRecord, wanted: string | undefined): void {
  const keyId = wanted?.trim();
  if (keyId === undefined || keyId === '' || keyId === service.transparentDataEncryptionKeyId) return;
  if (keyId.length > TDE_KEY_ID_MAX) {
    draft.problems.push({
      field: 'tdeKeyId',
      message: `The key id has ${keyId.length} characters; the limit is ${TDE_KEY_ID_MAX}.`,
    });
    return;
  }
  if (service.hasTransparentDataEncryption === false) {
    draft.problems.push({
      field: 'tdeKeyId',
      message: 'This service does not use transparent data encryption, so it has no key to rotate.',
    });
    return;
  }
  draft.update.transparentDataEncryptionKeyId = keyId;
  draft.touched.add('tdeKeyId');
  draft.changes.push({
    field: 'tdeKeyId',
    label: 'Encryption key',
    before: service.transparentDataEncryptionKeyId ?? 'unknown',
    after: keyId,
  });
}

// ---------------------------------------------------------------------------------------------
// Tags

/** "env=prod", or just "keep" for a tag without a value. */
export const tagText = (tag: OutgoingTag): string => (tag.value === undefined ? tag.key : `${tag.key}=${tag.value}`);

const sameTagValue = (a: string | undefined, b: string | undefined) => (a ?? '') === (b ?? '');

/**
 * Tags are keyed: adding a known key with another value replaces it. That is sent as remove of the
 * old tag plus add of the new one (the API removes first), so it does not rely on add replacing.
 */
function planTags(draft: Draft, current: OutgoingTag[], intent: ChangeIntent): void {
  const adds = validTags(draft, 'tagAdd', intent.tagAdd ?? []);
  const removes = validTags(draft, 'tagRemove', intent.tagRemove ?? []);
  if (adds === undefined || removes === undefined) return;
  const both = adds.find((tag) => removes.some((r) => r.key === tag.key));
  if (both) {
    draft.problems.push({ field: 'tagAdd', message: `Tag ${both.key} is both added and removed; choose one.` });
    return;
  }
  const byKey = new Map(current.map((tag) => [tag.key, tag]));
  const bodyRemove: OutgoingTag[] = [];
  const bodyAdd: OutgoingTag[] = [];
  for (const wanted of removes) {
    const existing = byKey.get(wanted.key);
    if (existing === undefined) {
      draft.problems.push({
        field: 'tagRemove',
        message: `The service has no tag ${wanted.key}, so there is nothing to remove.`,
      });
    } else if (wanted.value !== undefined && !sameTagValue(existing.value, wanted.value)) {
      draft.problems.push({
        field: 'tagRemove',
        message: `Tag ${wanted.key} is ${tagText(existing)}, not ${tagText(wanted)}; nothing was removed.`,
      });
    } else {
      bodyRemove.push(existing);
      draft.changes.push({ field: 'tags', label: 'Tag', before: tagText(existing), after: 'removed' });
    }
  }
  for (const wanted of adds) {
    const existing = byKey.get(wanted.key);
    if (existing !== undefined && sameTagValue(existing.value, wanted.value)) continue;
    if (existing !== undefined) bodyRemove.push(existing);
    bodyAdd.push(wanted);
    draft.changes.push({
      field: 'tags',
      label: 'Tag',
      before: existing === undefined ? 'absent' : tagText(existing),
      after: tagText(wanted),
    });
  }
  for (const [list, verb] of [
    [bodyRemove, 'removes'],
    [bodyAdd, 'adds'],
  ] as const) {
    if (list.length > TAG_EDITS_MAX) {
      draft.problems.push({
        field: verb === 'adds' ? 'tagAdd' : 'tagRemove',
        message: `This request ${verb} ${list.length} tags; the API takes at most ${TAG_EDITS_MAX} at once. Split it.`,
      });
    }
  }
  if (bodyRemove.length === 0 && bodyAdd.length === 0) return;
  draft.update.tags = {
    ...(bodyRemove.length > 0 ? { remove: bodyRemove } : {}),
    ...(bodyAdd.length > 0 ? { add: bodyAdd } : {}),
  };
  draft.touched.add('tags');
}

/** Checks the alphabet (parsed input may come from the modal) and refuses a key given twice. */
function validTags(draft: Draft, field: 'tagAdd' | 'tagRemove', wanted: OutgoingTag[]): OutgoingTag[] | undefined {
  const seen = new Set<string>();
  let valid = true;
  for (const tag of wanted) {
    if (!isTagKey(tag.key) || (tag.value !== undefined && !isTagValue(tag.value))) {
      draft.problems.push({
        field,
        message: `"${tagText(tag)}" is not a tag: keys (1-128) and values (up to 256) may contain only letters, digits, dots, hyphens and underscores.`,
      });
      valid = false;
    } else if (seen.has(tag.key)) {
      draft.problems.push({ field, message: `Tag ${tag.key} is given twice; give each key once.` });
      valid = false;
    }
    seen.add(tag.key);
  }
  return valid ? wanted : undefined;
}
