/**
 * An API key's state and expiry (`PATCH …/keys/{keyId}`): a change whose target is a key, not a
 * service (core/access/target.ts). A kill switch for a leaked key (`key disable`, allowed under
 * break-glass), and hygiene (`key expire KEY in 30d`). The key the bot itself uses is refused.
 */
import type { ArgumentReader } from '../../command/reader.js';
import type { Token } from '../../command/tokenize.js';
import { echo } from '../../command/arguments.js';
import type { ApiKey } from '../../access/api-key.js';
import type { ServiceRecord } from '../../service/schema.js';
import type { ApiKeyIntent, ApiKeyOperation, ChangePlan } from '../types.js';
import type { ChangeKindModule, Draft, KindCommand } from './kind.js';

const DAY_MS = 86_400_000;
/** The longest expiry `key expire` sets, in days (a key that expires in ten years never really does). */
export const MAX_EXPIRY_DAYS = 365;

function keyCommand(action: 'disable' | 'enable', summary: string): KindCommand {
  return {
    ...(action === 'disable' ? { breaksGlassForGood: true } : {}),
    name: `key ${action}`,
    usage: `key ${action} KEY`,
    example: `key ${action} ${action === 'disable' ? 'ci-readonly' : 'old-dashboard'}`,
    summary,
    target: 'apiKey',
    fixedWords: 2,
    groupAsk: 'Say what to do with the key',
    parse(args: Token[], read: ArgumentReader) {
      const [key, ...extra] = args;
      const target = read.id(key, 'the key: its name, id, or … and its last four characters');
      read.rejectExtra(extra, 'one key', 'A key name with spaces goes in quotes.');
      return read.change(target, { apiKey: { action } });
    },
  };
}

const expire: KindCommand = {
  name: 'key expire',
  usage: `key expire KEY in Nd|never`,
  example: 'key expire terraform in 30d',
  more: ['key expire ci-readonly never'],
  summary: `Request that an API key expire in 1-${MAX_EXPIRY_DAYS} days, or never.`,
  target: 'apiKey',
  fixedWords: 2,
  parse(args: Token[], read: ArgumentReader) {
    const [key, first, second, ...extra] = args;
    const target = read.id(key, 'the key and when it expires');
    if (first === undefined) return read.missing('when it expires (in 30d, or never)');
    read.rejectExtra(extra, 'a key and when it expires');
    if (first.text.toLowerCase() === 'never' && second === undefined)
      return read.change(target, { apiKey: { action: 'expire', inDays: null } });
    const days = first.text.toLowerCase() === 'in' ? /^(\d+)\s*d(ays?)?$/i.exec(second?.text ?? '') : null;
    const count = days ? Number(days[1]) : NaN;
    if (!(count >= 1 && count <= MAX_EXPIRY_DAYS))
      read.fail(
        `Write when it expires as in Nd (1 to ${MAX_EXPIRY_DAYS} days) or never, not ${echo([first.text, second?.text ?? ''].join(' ').trim())}.`,
      );
    return read.change(target, { apiKey: { action: 'expire', inDays: count } });
  },
};

function keyOf(service: ServiceRecord): { key: ApiKey; ownKeyId: string } | undefined {
  const target = service.organizationTarget;
  return target?.type === 'apiKey' ? target : undefined;
}

const expiryText = (expireAt: string | null | undefined) => (expireAt ? expireAt.slice(0, 10) : 'never');

/** Expiries compare by instant ("…Z" and "….000Z" are the same). */
const sameExpiry = (a: string | null | undefined, b: string | null | undefined) =>
  (a ? Date.parse(a) : null) === (b ? Date.parse(b) : null);

function plan(draft: Draft, service: ServiceRecord, wanted: ApiKeyIntent): void {
  const subject = keyOf(service);
  if (!subject) return void draft.problems.push({ field: 'apiKey', message: 'That is not an API key.' });
  const { key, ownKeyId } = subject;
  const named = `${key.name} (…${key.keySuffix ?? '????'})`;
  // Never expiring cuts nothing off: only disabling the bot's key, or giving it an end, is refused.
  const cutsOff = wanted.action === 'disable' || (wanted.action === 'expire' && wanted.inDays !== null);
  if (key.id === ownKeyId && cutsOff)
    return void draft.problems.push({
      field: 'apiKey',
      message: `${named} is the key the bot uses; ${wanted.action === 'disable' ? 'disabling' : 'expiring'} it would cut the bot off. Do it in the console if you mean it.`,
    });
  const body: ApiKeyOperation['body'] = {};
  if (wanted.action === 'expire') {
    const expireAt = wanted.inDays === null ? null : wanted.expireAt;
    if (expireAt === undefined)
      return void draft.problems.push({ field: 'apiKey', message: 'The expiry could not be dated.' });
    if (expireAt === null && (key.expireAt ?? null) === null)
      return void draft.unchanged.push({ field: 'apiKey', message: `${named} already never expires.` });
    body.expireAt = expireAt;
    draft.changes.push({
      field: 'apiKey',
      label: 'Expires',
      before: expiryText(key.expireAt),
      after: expiryText(expireAt),
    });
    if (expireAt === null)
      draft.warnings.push(`${named} will never expire: a leaked copy stays usable until someone disables it.`);
  } else {
    const state = wanted.action === 'disable' ? 'disabled' : 'enabled';
    if (key.state === state)
      return void draft.unchanged.push({ field: 'apiKey', message: `${named} is already ${state}.` });
    body.state = state;
    draft.changes.push({ field: 'apiKey', label: 'State', before: key.state, after: state });
    if (state === 'disabled') draft.warnings.push(`Anything that authenticates with ${named} stops working at once.`);
  }
  draft.touched.add('apiKey');
  draft.writes.push({ endpoint: 'apiKey', keyId: key.id, body });
}

function bodyOf(plan: ChangePlan): ApiKeyOperation['body'] | undefined {
  for (const operation of plan.operations ?? []) if (operation.endpoint === 'apiKey') return operation.body;
  return undefined;
}

export const apiKeyKind: ChangeKindModule<'apiKey'> = {
  field: 'apiKey',
  policyName: 'api-key',
  intents: ['apiKey'],
  commands: [
    keyCommand('disable', 'Request that an API key be disabled (a leaked key, at once under break-glass).'),
    keyCommand('enable', 'Request that a disabled API key be enabled again.'),
    expire,
  ],
  // `in 30d` is a date from the day the request is made: read with the clock once, when asked.
  localize(intent, _zone, now) {
    const wanted = intent.apiKey;
    if (wanted?.action !== 'expire' || wanted.inDays === null || wanted.expireAt !== undefined) return intent;
    return { ...intent, apiKey: { ...wanted, expireAt: new Date(now + wanted.inDays * DAY_MS).toISOString() } };
  },
  read: (service) => {
    const subject = keyOf(service);
    return subject ? { state: subject.key.state, expireAt: subject.key.expireAt ?? null } : null;
  },
  same: (a, b) => (a?.state ?? null) === (b?.state ?? null) && sameExpiry(a?.expireAt, b?.expireAt),
  plan(draft, service, intent) {
    if (intent.apiKey) plan(draft, service, intent.apiKey);
  },
  visible: () => true,
  undo(plan, service, reverse) {
    const body = bodyOf(plan);
    const before = plan.before.apiKey;
    const now = keyOf(service);
    if (!body || !before || !now) return;
    if (body.state !== undefined) {
      if (now.key.state === body.state)
        reverse.intent.apiKey = { action: before.state === 'enabled' ? 'enable' : 'disable' };
      else reverse.leftAlone.push(`The key is no longer ${body.state}.`);
    } else if (body.expireAt !== undefined) {
      reverse.leftAlone.push('An expiry is not undone: set the one you want with key expire.');
    }
  },
  containment: (plan) => bodyOf(plan)?.state === 'disabled',
  risks: (plan) => (bodyOf(plan)?.state === 'enabled' ? ['key-enable'] : []),
  possibleRisks: ['key-enable'],
};
