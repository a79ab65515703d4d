/**
 * Checks of command arguments that need no service: each answers with the value to use or a
 * sentence telling the person what is wrong and how to write it instead. The Cloud schemas stay
 * the source of truth for what is valid; this file only words their verdicts for people.
 */
import {
  IP_DESCRIPTION_MAX,
  IpSourceSchema,
  RELEASE_CHANNELS,
  SERVICE_NAME_MAX,
  ServiceNameSchema,
  isTagKey,
  isTagValue,
  TAG_KEY_MAX,
  TAG_VALUE_MAX,
  TagFilterSchema,
  type OutgoingTag,
  type ReleaseChannel,
} from '../service/schema.js';

export type Checked<T> = { ok: true; value: T } | { ok: false; message: string };

const ok = <T>(value: T): Checked<T> => ({ ok: true, value });
const problem = <T>(message: string): Checked<T> => ({ ok: false, message });

const ECHO_MAX = 60;

/**
 * A person's input quoted back in a message: shortened, because a 3,000-character word would
 * drown the explanation, and with control characters replaced so they cannot garble the reply.
 * Slack escaping (&, <, >) is left to whoever renders the message.
 */
export function echo(text: string): string {
  const visible = text.replace(/\p{Cc}/gu, '\uFFFD');
  const chars = Array.from(visible);
  const shown = chars.length > ECHO_MAX ? `${chars.slice(0, ECHO_MAX - 1).join('')}…` : visible;
  return `"${shown}"`;
}

const TAG_FORM = 'tag:KEY (services that have the tag) or tag:KEY=VALUE, e.g. tag:env=prod';
const TAG_CHARACTERS =
  'keys and values may contain only letters, digits, dots, hyphens and underscores ' +
  '(keys up to 128 characters, values up to 256)';

/** Filters of list, summary and schedule add, plus the schedule's time zone when allowed. */
export interface FilterWords {
  filters: string[];
  timeZone?: string;
}

export function checkFilterWords(words: string[], options: { timeZoneAllowed: boolean }): Checked<FilterWords> {
  const filters: string[] = [];
  let timeZone: string | undefined;
  for (const word of words) {
    if (hasPrefix(word, 'tz:')) {
      const zone = checkTimeZoneWord(word, timeZone, options.timeZoneAllowed);
      if (!zone.ok) return zone;
      timeZone = zone.value;
      continue;
    }
    const filter = checkTagFilter(word, options.timeZoneAllowed);
    if (!filter.ok) return filter;
    filters.push(filter.value);
  }
  return ok(timeZone === undefined ? { filters } : { filters, timeZone });
}

/** Case-insensitive, because "Tag:env" is plainly meant as a tag filter. */
function hasPrefix(word: string, prefix: string): boolean {
  return word.slice(0, prefix.length).toLowerCase() === prefix;
}

function checkTagFilter(word: string, timeZoneAllowed: boolean): Checked<string> {
  if (!hasPrefix(word, 'tag:')) {
    const more = timeZoneAllowed ? ' A time zone reads tz:Area/City, e.g. tz:Europe/Berlin.' : '';
    return problem(`${echo(word)} is not a filter. Filter with ${TAG_FORM}.${more}`);
  }
  // The API only knows the lower-case prefix; the key and value keep their case.
  const filter = `tag:${word.slice(4)}`;
  if (TagFilterSchema.safeParse(filter).success) return ok(filter);
  return problem(`${echo(word)} is not a tag filter I can use: ${TAG_CHARACTERS}. Write ${TAG_FORM}.`);
}

function checkTimeZoneWord(word: string, earlier: string | undefined, allowed: boolean): Checked<string> {
  if (!allowed) return problem(`A time zone (${echo(word)}) only applies to schedule add; leave it out here.`);
  const zone = word.slice(3).trim();
  if (zone === '') return problem('The time zone after tz: is missing. Write it like tz:Europe/Berlin.');
  if (earlier !== undefined) return problem(`Give one time zone, not two (${echo(earlier)} and ${echo(zone)}).`);
  return ok(zone);
}

/** One KEY or KEY=VALUE word of `tag add` / `tag remove`, split on the first "=". */
export function checkTagWord(word: string): Checked<OutgoingTag> {
  const eq = word.indexOf('=');
  const key = eq === -1 ? word : word.slice(0, eq);
  const value = eq === -1 ? undefined : word.slice(eq + 1);
  if (!isTagKey(key)) {
    return problem(
      `${echo(key)} is not a tag key: a key has 1 to ${TAG_KEY_MAX} letters, digits, dots, hyphens or underscores. Write KEY or KEY=VALUE, e.g. env=prod.`,
    );
  }
  if (value === undefined) return ok({ key });
  if (!isTagValue(value)) {
    return problem(
      `${echo(value)} is not a tag value: a value has up to ${TAG_VALUE_MAX} letters, digits, dots, hyphens or underscores. Write KEY=VALUE, e.g. env=prod.`,
    );
  }
  return ok({ key, value });
}

export function checkIpSource(word: string): Checked<string> {
  const parsed = IpSourceSchema.safeParse(word);
  if (parsed.success) return ok(parsed.data);
  return problem(`${echo(word)} is not an IP address or CIDR block. Write it like 203.0.113.7 or 10.0.0.0/8.`);
}

/** Measured as the schema does (UTF-16 units), so the count in the message matches the limit. */
export function checkIpDescription(description: string): Checked<string> {
  const length = description.length;
  if (length <= IP_DESCRIPTION_MAX) return ok(description);
  return problem(`The description is ${length} characters long; it can be at most ${IP_DESCRIPTION_MAX}. Shorten it.`);
}

/**
 * ServiceNameSchema decides; its issues pick the sentence. Characters are reported before length
 * because an emoji counts as two towards the limit: "too long" would mislead while it is there.
 */
export function checkServiceName(name: string, example: string): Checked<string> {
  const parsed = ServiceNameSchema.safeParse(name);
  if (parsed.success) return ok(parsed.data);
  const codes = new Set(parsed.error.issues.map((issue) => issue.code));
  const trimmed = name.trim();
  if (codes.has('too_small')) {
    return problem(`The new name is missing. Write it after the service: ${example}`);
  }
  if (codes.has('invalid_format')) return problem(unwantedCharactersMessage(trimmed));
  const length = trimmed.length;
  return problem(`The new name is ${length} characters long; names can be at most ${SERVICE_NAME_MAX}. Shorten it.`);
}

function unwantedCharactersMessage(name: string): string {
  const rule = 'names may contain only letters A-Z, digits, spaces, hyphens and underscores.';
  // The first few distinct offenders, so the person sees what to take out.
  const unwanted = [...new Set(Array.from(name).filter((char) => !/^[A-Za-z0-9 _-]$/.test(char)))].slice(0, 5);
  if (unwanted.length === 0) return `The new name ${echo(name)} is not allowed: ${rule}`;
  return `The new name ${echo(name)} contains ${unwanted.map(echo).join(', ')}; ${rule}`;
}

export function checkReleaseChannel(word: string): Checked<ReleaseChannel> {
  const channel = RELEASE_CHANNELS.find((name) => name === word.toLowerCase());
  if (channel !== undefined) return ok(channel);
  return problem(`${echo(word)} is not a release channel. Choose slow, default or fast.`);
}

const SWITCH_WORDS: ReadonlyMap<string, boolean> = new Map([
  ['on', true],
  ['enable', true],
  ['enabled', true],
  ['true', true],
  ['off', false],
  ['disable', false],
  ['disabled', false],
  ['false', false],
]);

export function isSwitchWord(word: string): boolean {
  return SWITCH_WORDS.has(word.toLowerCase());
}

export function checkSwitch(word: string): Checked<boolean> {
  const enabled = SWITCH_WORDS.get(word.toLowerCase());
  if (enabled !== undefined) return ok(enabled);
  return problem(`${echo(word)} is neither on nor off. Write on or off (enable/disable and true/false work too).`);
}

/** Only the MySQL endpoint can be switched: the API's update accepts no other protocol. */
export function checkSwitchableProtocol(word: string): Checked<'mysql'> {
  if (word.toLowerCase() === 'mysql') return ok('mysql');
  return problem(`Only the mysql endpoint can be switched on or off; the ${echo(word)} endpoint cannot.`);
}

/** "3", "2-6", "2 – 6", "2 to 6"; memory may end in GB. Bounds are the planner's (it knows the service). */
const RANGE = /^(\d{1,6})(?:\s*(?:-|–|—|to)\s*(\d{1,6}))?$/iu;

function checkRange(text: string, unit: RegExp | undefined, refusal: string): Checked<{ min: number; max: number }> {
  const bare = unit ? text.replace(unit, '') : text;
  const match = RANGE.exec(bare.trim());
  if (!match) return problem(`${refusal}; ${echo(text)} is not.`);
  const min = Number(match[1]);
  const max = match[2] === undefined ? min : Number(match[2]);
  return ok({ min, max });
}

/** Replicas: a count like 3, or a range like 2-6. */
export function checkReplicas(text: string): Checked<{ min: number; max: number }> {
  return checkRange(text, undefined, 'Replicas are a whole number like 3, or a range like 2-6');
}

/** Memory per replica in GB: 16, 16GB, or a range like 16-64. */
export function checkReplicaMemory(text: string): Checked<{ min: number; max: number }> {
  return checkRange(
    text,
    /\s*(?:gb|gib|g)\b/giu,
    'Memory per replica is a number of GB like 16, or a range like 16-64',
  );
}
