/**
 * A service's Query API endpoint (`POST`/`DELETE …/services/{id}/serviceQueryEndpoint`): on for
 * some API keys with a role and origins, or off. Its keys are named as people know them (a name,
 * an id, or `…` and the last four characters) and resolved against `GET …/keys` when the request is
 * filed (resolveQueryKeys). For a while (`for 2h`), the revert puts it back exactly as it was.
 */
import type { ApiKey } from '../../access/api-key.js';
import { echo } from '../../command/arguments.js';
import type { ArgumentReader } from '../../command/reader.js';
import type { Token } from '../../command/tokenize.js';
import { ADMIN_QUERY_ROLE, originsOf } from '../../service/query-endpoint.js';
import type { QueryEndpointUpdate } from '../../service/parts.js';
import type { ServiceRecord } from '../../service/schema.js';
import type { Risk } from '../../policy/types.js';
import type { ChangeIntent, ChangePlan, QueryEndpointIntent, QueryEndpointState, QueryKeyRef } from '../types.js';
import type { ChangeKindModule, Draft, KindCommand, PlannedReverse } from './kind.js';

type Role = 'sql_console_read_only' | 'sql_console_admin';
const ROLE_WORDS: Record<string, Role> = {
  'read-only': 'sql_console_read_only',
  readonly: 'sql_console_read_only',
  admin: ADMIN_QUERY_ROLE,
};
const ROLE_NAMES: Record<string, string> = { sql_console_read_only: 'read-only', sql_console_admin: 'admin' };

const ON_USAGE = 'query-endpoint SERVICE on read-only|admin keys KEY[,KEY…] [origins DOMAIN[,DOMAIN…]] [for DURATION]';
const DOMAIN = /^(\*\.)?([a-z0-9]([a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,}$|^localhost$/i;

const on: KindCommand = {
  name: 'query-endpoint on',
  usage: ON_USAGE,
  example: 'query-endpoint orders-prod on read-only keys ci-readonly origins dash.example.com',
  more: ['query-endpoint orders-prod on admin keys …T3rr for 2h'],
  summary:
    "Request that a service's Query API endpoint be on for these API keys (by name, id or …last four), read-only or admin, from these origins; for 2h puts it back as it was.",
  temporaryForm: 'query-endpoint … on',
  verbAfterService: true,
  fixedWords: 2,
  groupAsk: 'After the service, say on or off',
  parse(words: Token[], read: ArgumentReader) {
    const { args, durationMs } = read.splitDuration(words, 1);
    const [service, ...rest] = args;
    const value = read.service(service, 'the service, the role and the keys');
    return read.change(value, { queryEndpoint: readOn(rest, read) }, durationMs);
  },
};

const off: KindCommand = {
  name: 'query-endpoint off',
  usage: 'query-endpoint SERVICE off',
  example: 'query-endpoint events-prod off',
  summary: "Request that a service's Query API endpoint be switched off: no API key can query it over HTTP.",
  verbAfterService: true,
  fixedWords: 2,
  parse(words: Token[], read: ArgumentReader) {
    const [service, ...extra] = words;
    const value = read.service(service, 'the service');
    if (extra.some((word) => word.text.toLowerCase() === 'for'))
      read.fail('Only switching the endpoint on can be temporary: the bot puts it back as it was when the time is up.');
    read.rejectExtra(extra, 'a service and off');
    return read.change(value, { queryEndpoint: { on: false } });
  },
};

/** `read-only|admin keys A,B [origins x.example.com,…]`, keys and origins each once. */
function readOn(words: Token[], read: ArgumentReader): QueryEndpointIntent {
  const [roleWord, ...rest] = words;
  if (roleWord === undefined) read.missing('the role (read-only or admin) and the keys');
  const role = ROLE_WORDS[roleWord.text.toLowerCase()];
  if (role === undefined) read.fail(`The role is read-only or admin, not ${echo(roleWord.text)}. Write: ${ON_USAGE}`);
  const lists: Record<'keys' | 'origins', string[] | undefined> = { keys: undefined, origins: undefined };
  let current: 'keys' | 'origins' | undefined;
  for (const token of rest) {
    const word = token.text.toLowerCase();
    if (!token.quoted && (word === 'keys' || word === 'key' || word === 'origins' || word === 'origin')) {
      current = word.startsWith('key') ? 'keys' : 'origins';
      if (lists[current] !== undefined) read.fail(`Give ${current} once, as a list separated by commas.`);
      lists[current] = [];
      continue;
    }
    if (current === undefined) read.fail(`I don't know what to do with ${echo(token.text)}. Write: ${ON_USAGE}`);
    lists[current]?.push(...token.text.split(',').map((item) => item.trim()));
  }
  const keys = [...new Set((lists.keys ?? []).filter(Boolean))];
  if (keys.length === 0) read.fail(`Name the API keys that may call it after keys, like this: ${read.spec.example}`);
  if (lists.origins !== undefined && lists.origins.filter(Boolean).length === 0)
    read.fail('After origins, give domains separated by commas, like dash.example.com,partner.example.com.');
  return { on: true, roles: [role], keys: keys.map((asked) => ({ asked })), origins: originsText(lists.origins, read) };
}

/** The origins as the API takes them; `*` (or none given) is any origin, which the API writes as empty. */
function originsText(origins: string[] | undefined, read: ArgumentReader): string {
  const given = [...new Set((origins ?? []).filter(Boolean))];
  if (given.includes('*')) {
    if (given.length > 1) read.fail('* already means any origin: give it alone, or list the domains.');
    return '';
  }
  const wrong = given.find((origin) => !DOMAIN.test(origin));
  if (wrong !== undefined) read.fail(`${echo(wrong)} is not a domain. Give origins like dash.example.com.`);
  return given.join(',');
}

// ---------------------------------------------------------------------------------------------
// Keys, resolved at filing against GET …/keys

const keyLabel = (key: ApiKey) => `${key.name || key.id} …${key.keySuffix ?? '????'}`;

/** Whether the intent names keys not yet looked up (a command's; an Undo or a revert has ids). */
export function asksForKeys(intent: ChangeIntent): boolean {
  const wanted = intent.queryEndpoint;
  return wanted?.on === true && wanted.keys.some((key) => key.id === undefined);
}

/**
 * Each key named by its name, id or `…` + last four characters, among the organization's keys:
 * one enabled key, or a sentence naming the candidates (none, several, or disabled).
 */
export function resolveQueryKeys(
  intent: ChangeIntent,
  keys: readonly ApiKey[],
): { ok: true; intent: ChangeIntent } | { ok: false; text: string } {
  const wanted = intent.queryEndpoint;
  if (wanted?.on !== true) return { ok: true, intent };
  const resolved: QueryKeyRef[] = [];
  for (const ref of wanted.keys) {
    if (ref.id !== undefined) {
      resolved.push(ref);
      continue;
    }
    const found = matchingKeys(ref.asked, keys);
    const enabled = found.filter((key) => key.state === 'enabled');
    const candidates = (list: readonly ApiKey[]) => list.map(keyLabel).join(', ') || 'none';
    if (found.length === 0)
      return {
        ok: false,
        text: `No API key is called ${echo(ref.asked)}. The keys are: ${candidates(keys.filter((k) => k.state === 'enabled'))}. Name one by its name, its id or … and its last four characters.`,
      };
    if (enabled.length === 0)
      return {
        ok: false,
        text: `The API key ${echo(ref.asked)} is ${found[0]?.state ?? 'disabled'}: a disabled key cannot be allowed. Enabled keys: ${candidates(keys.filter((k) => k.state === 'enabled'))}.`,
      };
    if (enabled.length > 1)
      return {
        ok: false,
        text: `${echo(ref.asked)} names ${enabled.length} API keys: ${candidates(enabled)}. Name one by its id or … and its last four characters.`,
      };
    const [key] = enabled as [ApiKey];
    resolved.push({ asked: ref.asked, id: key.id, label: keyLabel(key) });
  }
  const known = keys.map((key) => ({ id: key.id, label: keyLabel(key) }));
  return { ok: true, intent: { ...intent, queryEndpoint: { ...wanted, keys: resolved, known } } };
}

function matchingKeys(asked: string, keys: readonly ApiKey[]): ApiKey[] {
  const byId = keys.filter((key) => key.id === asked);
  if (byId.length > 0) return byId;
  const suffix = /^(?:…|\.\.\.)(.{4})$/.exec(asked)?.[1];
  if (suffix !== undefined) return keys.filter((key) => key.keySuffix === suffix);
  return keys.filter((key) => key.name.toLowerCase() === asked.toLowerCase());
}

// ---------------------------------------------------------------------------------------------
// Planning

/** The endpoint as a change reads it: 'off', or its roles, keys and origins; null when it could not be read. */
function readEndpoint(service: ServiceRecord): QueryEndpointState | 'off' | null {
  const part = service.parts?.serviceQueryEndpoint;
  if (part === undefined) return null;
  if (part === null) return 'off';
  return { roles: part.roles, openApiKeys: part.openApiKeys, allowedOrigins: originsOf(part).join(',') };
}

const sameSet = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');

function sameState(a: QueryEndpointState | 'off' | undefined, b: QueryEndpointState | 'off' | undefined): boolean {
  if (a === undefined || b === undefined || a === 'off' || b === 'off') return a === b;
  return (
    sameSet(a.roles, b.roles) &&
    sameSet(a.openApiKeys, b.openApiKeys) &&
    sameSet(a.allowedOrigins.split(',').filter(Boolean), b.allowedOrigins.split(',').filter(Boolean))
  );
}

const rolesText = (roles: readonly string[]) => roles.map((role) => ROLE_NAMES[role] ?? role).join(', ') || 'none';
const originsLine = (origins: string) => (origins === '' ? 'any' : origins.split(',').join(', '));

function keysText(ids: readonly string[], labels: ReadonlyMap<string, string>): string {
  return ids.map((id) => labels.get(id) ?? `key ${id}`).join(', ') || 'none';
}

function plan(draft: Draft, service: ServiceRecord, wanted: QueryEndpointIntent): void {
  const now = readEndpoint(service);
  if (now === null) {
    draft.problems.push({ field: 'queryEndpoint', message: "The service's Query API endpoint could not be read." });
    return;
  }
  if (!wanted.on) {
    if (now === 'off')
      return void draft.unchanged.push({ field: 'queryEndpoint', message: 'The Query API endpoint is already off.' });
    draft.writes.push({ endpoint: 'part', part: 'serviceQueryEndpoint', body: null });
    draft.touched.add('serviceQueryEndpoint');
    draft.changes.push({ field: 'serviceQueryEndpoint', label: 'Query API endpoint', before: 'on', after: 'off' });
    draft.warnings.push('Every API key allowed now loses access to this service over HTTP.');
    return;
  }
  const unresolved = wanted.keys.filter((key) => key.id === undefined);
  if (unresolved.length > 0) {
    draft.problems.push({ field: 'queryEndpoint', message: 'The API keys could not be looked up: ask again.' });
    return;
  }
  const body: QueryEndpointUpdate = {
    roles: wanted.roles,
    openApiKeys: wanted.keys.flatMap((key) => key.id ?? []),
    allowedOrigins: wanted.origins,
  };
  const after: QueryEndpointState = { ...body };
  if (sameState(now, after))
    return void draft.unchanged.push({
      field: 'queryEndpoint',
      message: 'The Query API endpoint is already on like that.',
    });
  const labels = new Map([
    ...(wanted.known ?? []).map((key) => [key.id, key.label] as const),
    ...wanted.keys.map((key) => [key.id ?? '', key.label ?? key.asked] as const),
  ]);
  const before = now === 'off' ? undefined : now;
  const line = (label: string, from: string, to: string) =>
    from === to ? [] : [{ field: 'serviceQueryEndpoint' as const, label, before: from, after: to }];
  draft.writes.push({ endpoint: 'part', part: 'serviceQueryEndpoint', body });
  draft.touched.add('serviceQueryEndpoint');
  draft.changes.push(
    ...line('Query API endpoint', before ? 'on' : 'off', 'on'),
    ...line('Role', before ? rolesText(before.roles) : '–', rolesText(after.roles)),
    ...line('Keys allowed', before ? keysText(before.openApiKeys, labels) : '–', keysText(after.openApiKeys, labels)),
    ...line('Origins', before ? originsLine(before.allowedOrigins) : '–', originsLine(after.allowedOrigins)),
  );
  if (after.roles.includes(ADMIN_QUERY_ROLE))
    draft.warnings.push('Admin: these keys will be able to write to the service over HTTP, not only read.');
  if (after.allowedOrigins === '')
    draft.warnings.push('Any origin: no origin is named, so a browser page anywhere may call the endpoint.');
}

/** The body of this plan's write to the endpoint: the endpoint as it will be, null when switched off. */
function endpointBodyOf(plan: ChangePlan): QueryEndpointUpdate | null | undefined {
  for (const operation of plan.operations ?? [])
    if (operation.endpoint === 'part' && operation.part === 'serviceQueryEndpoint') return operation.body;
  return undefined;
}

function planRisks(plan: ChangePlan): Risk[] {
  const body = endpointBodyOf(plan);
  if (!body) return [];
  const risks: Risk[] = [];
  if (body.roles.includes(ADMIN_QUERY_ROLE)) risks.push('query-admin');
  if (body.allowedOrigins.trim() === '') risks.push('query-any-origin');
  return risks;
}

/** The endpoint as this plan left it ('off' when it switched it off). */
function stateLeft(plan: ChangePlan): QueryEndpointState | 'off' | undefined {
  const body = endpointBodyOf(plan);
  return body === undefined ? undefined : body === null ? 'off' : { ...body };
}

/** The intent that puts the endpoint back exactly as `before`. */
function intentOf(before: QueryEndpointState | 'off'): QueryEndpointIntent {
  if (before === 'off') return { on: false };
  const roles = before.roles.filter((role): role is Role => role in ROLE_NAMES);
  const keys = before.openApiKeys.map((id) => ({ asked: id, id }));
  return { on: true, roles, keys, origins: before.allowedOrigins };
}

/** Back to what it was before, if the service still shows it as the change left it. */
function putBack(plan: ChangePlan, service: ServiceRecord, reverse: PlannedReverse, what: string): void {
  const before = plan.before.serviceQueryEndpoint;
  const left = stateLeft(plan);
  if (before === undefined || left === undefined) return;
  if (!sameState(readEndpoint(service) ?? undefined, left)) {
    reverse.leftAlone.push(
      `The Query API endpoint was changed since (it no longer reads as this change left it), so ${what} leaves it.`,
    );
    return;
  }
  reverse.intent.queryEndpoint = intentOf(before);
}

export const queryEndpointKind: ChangeKindModule<'serviceQueryEndpoint'> = {
  field: 'serviceQueryEndpoint',
  policyName: 'query-endpoint',
  intents: ['queryEndpoint'],
  target: 'serviceQueryEndpoint',
  commands: [on, off],
  read: readEndpoint,
  same: sameState,
  plan(draft, service, intent) {
    if (intent.queryEndpoint) plan(draft, service, intent.queryEndpoint);
  },
  // Not part of the record's update: its write is verified on the part (operations.ts).
  visible: () => true,
  undo: (plan, service, reverse) => putBack(plan, service, reverse, 'the Undo'),
  risks: planRisks,
  possibleRisks: ['query-admin', 'query-any-origin'],
  temporary: {
    grants: (intent) => intent.queryEndpoint?.on === true,
    problem: () => undefined,
    revert: (plan, service, reverse) => putBack(plan, service, reverse, 'the revert'),
  },
};
