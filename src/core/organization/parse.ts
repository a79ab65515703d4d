/**
 * Reads ORGANIZATIONS_FILE (YAML) into organizations and their channels. Total, like the policy
 * file: the answer is the organizations or every problem found, each with its line, so a person
 * fixes the whole file in one go. Key secrets are never in the file: it names the environment
 * variables that hold them, and `isSet` says whether they are set.
 */
import { createHash } from 'node:crypto';
import { LineCounter, parseDocument } from 'yaml';
import { z } from 'zod';
import { CHANGE_KINDS } from '../policy/types.js';
import { byLine, firstLine, issueMessage, keyOffset, located, nodeOffset, valueAt } from '../yaml-problems.js';
import { COMMAND_WORDS } from './rules.js';
import type { ChannelRules, OrganizationSpec, OrganizationsSpec } from './types.js';

export const MAX_ORGANIZATIONS_BYTES = 256 * 1024;

export type OrganizationsParse = { ok: true; spec: OrganizationsSpec } | { ok: false; problems: string[] };

// A word may be both (query-endpoint: the read command and the kind of change): listed once.
export const ALLOW_WORDS: readonly string[] = [...new Set<string>([...COMMAND_WORDS, ...CHANGE_KINDS])];
const TAG_KEY = /^[A-Za-z0-9._-]{1,128}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

const KEYS_OF = {
  file: ['organizations'],
  organization: ['name', 'id', 'key_id_env', 'key_secret_env', 'api_url', 'channels'],
  channel: ['allow', 'services'],
  services: ['tags', 'names'],
} as const;

const envName = z
  .string({ error: 'must name an environment variable, like CH_ANALYTICS_KEY_ID' })
  .regex(ENV_NAME, { error: 'must name an environment variable (letters, digits, _), like CH_ANALYTICS_KEY_ID' });

const ServicesSchema = z.strictObject(
  {
    tags: z
      .record(
        z.string().regex(TAG_KEY, { error: 'is not a tag key (letters, digits, . _ -)' }),
        z
          .union([z.string(), z.number(), z.boolean()], { error: 'must be a value, or "*" for any value' })
          .transform(String),
        { error: 'must map tag keys to values, like { env: dev }' },
      )
      .refine((tags) => Object.keys(tags).length > 0, { error: 'must name at least one tag (or leave it out)' })
      .optional(),
    names: z
      .array(
        z.string({ error: 'must be a service name or id' }).trim().min(1, { error: 'must be a service name or id' }),
        {
          error: 'must be a list of service names or ids, like [orders-dev]',
        },
      )
      .min(1, { error: 'must not be empty (leave it out for every service)' })
      .optional(),
  },
  { error: 'must be a map with tags and/or names, like { tags: { env: dev } }' },
);

const ChannelSchema = z.strictObject(
  {
    allow: z
      .array(z.enum(ALLOW_WORDS as [string, ...string[]], { error: `must be one of ${ALLOW_WORDS.join(', ')}` }), {
        error: 'must be a list of command words and change kinds, like [list, show, summary]',
      })
      .min(1, { error: 'must not be empty (leave it out for full use)' })
      .optional(),
    services: ServicesSchema.optional(),
  },
  { error: 'must be a map with allow and/or services (use { } for full use)' },
);

const OrganizationSchema = z.strictObject(
  {
    name: z
      .string({ error: 'is required: a short name people see in requests and the audit' })
      .regex(/^[a-z0-9][a-z0-9_-]{0,39}$/, {
        error: 'must be a short name of lower-case letters, digits, - and _, like analytics',
      }),
    id: z.uuid({ error: 'must be the organization id (a UUID, from the console URL)' }),
    key_id_env: envName,
    key_secret_env: envName,
    api_url: z
      .url({ protocol: /^https?$/, error: 'must be an http(s) URL, like https://api.clickhouse.cloud' })
      .optional(),
    channels: z.record(
      z.string().regex(/^[CG][A-Z0-9]{2,}$/, { error: 'is not a Slack channel id (C…), like C0OPS' }),
      z.preprocess((value) => value ?? {}, ChannelSchema),
      { error: 'must map Slack channel ids to their rules, like { C0OPS: { } }' },
    ),
  },
  { error: 'must be a map with name, id, key_id_env, key_secret_env and channels' },
);

const FileSchema = z.strictObject(
  {
    organizations: z
      .array(OrganizationSchema, { error: 'must be a list of organizations (each starting with "- name: …")' })
      .min(1, { error: 'must list at least one organization' }),
  },
  { error: 'must be a map with an organizations: list' },
);

type ParsedOrganization = z.infer<typeof OrganizationSchema>;

export function parseOrganizations(text: string, isSet: (name: string) => boolean): OrganizationsParse {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_ORGANIZATIONS_BYTES)
    return {
      ok: false,
      problems: [`The organizations file has ${bytes} bytes; the limit is ${MAX_ORGANIZATIONS_BYTES}.`],
    };
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const lineOf = (offset: number | undefined) => (offset === undefined ? undefined : lines.linePos(offset).line);
  const at = (path: Array<string | number>) => lineOf(nodeOffset(doc, path));
  const yamlProblems = [...doc.errors, ...doc.warnings].map((e) => located(lineOf(e.pos[0]), firstLine(e.message)));
  if (doc.errors.length > 0) return { ok: false, problems: yamlProblems };
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    return { ok: false, problems: [`The organizations file could not be read: ${String(error)}.`] };
  }
  if (data === null || data === undefined)
    return { ok: false, problems: ['The organizations file is empty: it needs an organizations: list.'] };
  const parsed = FileSchema.safeParse(data);
  const problems = [...yamlProblems];
  if (!parsed.success)
    for (const issue of parsed.error.issues) {
      const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
      if (issue.code === 'unrecognized_keys') {
        const keys = issue.keys.map((k) => `"${k}"`).join(', ');
        const line = lineOf(keyOffset(doc, path, issue.keys[0]) ?? nodeOffset(doc, path));
        const inside = path.length > 2 ? `${fieldName(path)}: ` : '';
        problems.push(
          located(
            line,
            `${label(path, data)}${inside}unknown key${issue.keys.length === 1 ? '' : 's'} ${keys} (allowed here: ${KEYS_OF[context(path)].join(', ')})`,
          ),
        );
      } else {
        const message = issueMessage(issue, data, path, missingMessage);
        problems.push(located(at(path), `${label(path, data)}${fieldName(path)} ${message}`));
      }
    }
  problems.push(...crossProblems(data, at, isSet));
  if (problems.length > 0 || !parsed.success) return { ok: false, problems: problems.sort(byLine) };
  return {
    ok: true,
    spec: {
      organizations: parsed.data.organizations.map(toSpec),
      digest: createHash('sha256').update(text, 'utf8').digest('hex'),
    },
  };
}

function toSpec(org: ParsedOrganization): OrganizationSpec {
  const channels: Record<string, ChannelRules> = {};
  for (const [channel, rules] of Object.entries(org.channels)) {
    const services = rules.services && {
      ...(rules.services.tags ? { tags: rules.services.tags } : {}),
      ...(rules.services.names ? { names: rules.services.names } : {}),
    };
    channels[channel] = {
      ...(rules.allow ? { allow: [...new Set(rules.allow)] } : {}),
      ...(services && Object.keys(services).length > 0 ? { services } : {}),
    };
  }
  return {
    name: org.name,
    id: org.id,
    keyIdEnv: org.key_id_env,
    keySecretEnv: org.key_secret_env,
    ...(org.api_url === undefined ? {} : { apiUrl: org.api_url }),
    channels,
  };
}

/** Repeated names and ids, a channel bound twice, and key variables that are not set: on the data as written. */
function crossProblems(
  data: unknown,
  at: (path: Array<string | number>) => number | undefined,
  isSet: (name: string) => boolean,
): string[] {
  const organizations = valueAt(data, ['organizations']);
  if (!Array.isArray(organizations)) return [];
  const problems: string[] = [];
  const seen = { name: new Map<string, number>(), id: new Map<string, number>(), channel: new Map<string, number>() };
  organizations.forEach((_org: unknown, index) => {
    const path = ['organizations', index];
    for (const key of ['name', 'id'] as const) {
      const value = valueAt(data, [...path, key]);
      if (typeof value !== 'string') continue;
      const first = seen[key].get(value);
      if (first === undefined) seen[key].set(value, index);
      else
        problems.push(
          located(at([...path, key]), `${label(path, data)}${key} is already used by organization ${first + 1}`),
        );
    }
    const channels = valueAt(data, [...path, 'channels']);
    for (const channel of typeof channels === 'object' && channels !== null ? Object.keys(channels) : []) {
      const first = seen.channel.get(channel);
      if (first === undefined) seen.channel.set(channel, index);
      else
        problems.push(
          located(
            at([...path, 'channels', channel]),
            `${label(path, data)}channel ${channel} is already bound to organization ${first + 1}; a channel drives one organization`,
          ),
        );
    }
    for (const key of ['key_id_env', 'key_secret_env'] as const) {
      const name = valueAt(data, [...path, key]);
      if (typeof name === 'string' && ENV_NAME.test(name) && !isSet(name))
        problems.push(
          located(
            at([...path, key]),
            `${label(path, data)}${key} ${namedVariable(name)}, which is not set in the environment`,
          ),
        );
    }
  });
  return problems;
}

function missingMessage(path: Array<string | number>): string {
  return path.length === 1 ? 'is missing: the file needs an organizations: list' : 'is missing';
}

function context(path: Array<string | number>): keyof typeof KEYS_OF {
  if (path.length === 0) return 'file';
  if (path.length === 2) return 'organization';
  return path.at(-1) === 'services' ? 'services' : 'channel';
}

/** 'organization 2 ("analytics"): ' for problems inside an organization, '' at the top. */
function label(path: Array<string | number>, data: unknown): string {
  if (path[0] !== 'organizations' || typeof path[1] !== 'number') return '';
  const name = valueAt(data, ['organizations', path[1], 'name']);
  return typeof name === 'string' && name.trim()
    ? `organization ${path[1] + 1} ("${firstLine(name).slice(0, 40)}"): `
    : `organization ${path[1] + 1}: `;
}

/** The key path inside an organization, as written: "channels.C0DEV.allow[1]". */
function fieldName(path: Array<string | number>): string {
  const inner = path[0] === 'organizations' && typeof path[1] === 'number' ? path.slice(2) : path;
  if (inner.length === 0) return path.length === 0 ? 'The organizations file' : 'the organization';
  return inner.reduce<string>(
    (text, part) => (typeof part === 'number' ? `${text}[${part}]` : text ? `${text}.${part}` : part),
    '',
  );
}

/**
 * The variable a key_*_env names, in a message: a conventional name (CH_BILLING_KEY_SECRET) is
 * echoed; anything else may be the key itself pasted by mistake, so it is not.
 */
function namedVariable(name: string): string {
  return /^[A-Z][A-Z0-9_]*$/.test(name)
    ? `names ${name}`
    : 'names a variable (not shown: it is not written LIKE_THIS, so it may be the key itself pasted by mistake)';
}
