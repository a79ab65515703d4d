/**
 * Reads a policy file (YAML) into rules. Total: whatever the text, the answer is either a policy
 * or every problem found, each a sentence with the line it is on when YAML can tell, so a person
 * fixes the whole file in one go instead of one error per restart.
 */
import { createHash } from 'node:crypto';
import { LineCounter, parseDocument, type Document } from 'yaml';
import { z } from 'zod';
import { readSpokenDuration } from '../command/duration.js';
import { byLine, firstLine, issueMessage, keyOffset, located, nodeOffset } from '../yaml-problems.js';
import { ticketPatternProblem } from './justification.js';
import { isTimeZone } from '../schedule/cron.js';
import {
  CHANGE_KINDS,
  DEFAULT_BREAKGLASS_MAX_MS,
  NOTIFY,
  RISKS,
  WEEKDAYS,
  type Policy,
  type Requires,
  type Rule,
  type RuleMatch,
} from './types.js';

/** More would be a typo, and no Slack channel has that many reviewers awake. */
export const MAX_APPROVALS = 10;
/** A policy file is a few dozen rules; anything far larger is not one. */
export const MAX_POLICY_BYTES = 256 * 1024;

const SLACK_ID = /^[US][A-Z0-9]{2,}$/;
const TAG_KEY = /^[A-Za-z0-9._-]{1,128}$/;

export type PolicyParse = { ok: true; policy: Policy } | { ok: false; problems: string[] };

const KEYS_OF = {
  file: ['rules', 'breakglass', 'breakglass_max'],
  rule: [
    'name',
    'match',
    'approvals',
    'approvers',
    'deny',
    'remind',
    'escalate',
    'channel',
    'notify',
    'require',
    'window',
    'freeze',
  ],
  match: ['tags', 'services', 'changes', 'risks'],
  require: ['reason', 'ticket'],
  window: ['days', 'from', 'to', 'tz'],
  freeze: ['from', 'to', 'reason'],
} as const;

const nonEmptyList = <T extends z.ZodType>(item: T, what: string, example: string, ifLeftOut = 'to match any') =>
  z
    .array(item, { error: `must be a list of ${what}, like ${example}` })
    .min(1, { error: `must not be empty (leave the key out ${ifLeftOut})` });

const TagValueSchema = z
  .union([z.string(), z.number(), z.boolean()], { error: 'must be a value, or "*" for any value' })
  .transform(String);

const MatchSchema = z.strictObject(
  {
    tags: z
      .record(z.string().regex(TAG_KEY, { error: 'is not a tag key (letters, digits, . _ -)' }), TagValueSchema, {
        error: 'must map tag keys to values, like { env: prod }',
      })
      .refine((tags) => Object.keys(tags).length > 0, {
        error: 'must name at least one tag (leave the key out to match any)',
      })
      .optional(),
    services: nonEmptyList(
      z.string({ error: 'must be a service name or id' }).trim().min(1, { error: 'must be a service name or id' }),
      'service names or ids',
      '[orders-prod]',
    ).optional(),
    changes: nonEmptyList(
      z.enum(CHANGE_KINDS, { error: `must be one of ${CHANGE_KINDS.join(', ')}` }),
      'change kinds',
      '[ip-access]',
    ).optional(),
    risks: nonEmptyList(
      z.enum(RISKS, { error: `must be one of ${RISKS.join(', ')}` }),
      'risks',
      '[world-open]',
    ).optional(),
  },
  { error: 'must be a map with tags, services, changes or risks (use {} to match every request)' },
);

const RequireSchema = z.strictObject(
  {
    reason: z.boolean({ error: 'must be true or false' }).optional(),
    ticket: z
      .string({ error: 'must be a regular expression in quotes, like "^[A-Z]+-[0-9]+$"' })
      .superRefine((pattern, ctx) => {
        const problem = ticketPatternProblem(pattern);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      })
      .optional(),
  },
  { error: 'must be a map with reason and/or ticket, like { reason: true, ticket: "^[A-Z]+-[0-9]+$" }' },
);

/** Reminders and escalation wait at least this long, and at most this long (a request's lifetime is far shorter). */
export const NUDGE_MIN_MS = 60_000;
export const NUDGE_MAX_MS = 7 * 24 * 3_600_000;

/** "30m", "2h", "90 minutes": a wait of whole minutes between 1 minute and 7 days, in ms. */
const WaitSchema = z.string({ error: 'must be a duration like 30m, 2h or 90 minutes' }).transform((text, ctx) => {
  const reading = readSpokenDuration(text.trim().split(/\s+/u));
  if (reading.kind !== 'duration' || reading.ms < NUDGE_MIN_MS || reading.ms > NUDGE_MAX_MS) {
    ctx.addIssue({ code: 'custom', message: 'must be a duration from 1 minute to 7 days, like 30m, 2h or 90 minutes' });
    return z.NEVER;
  }
  return reading.ms;
});

/** People who count: Slack user (U…) and user group (S…) ids, at least one. */
const peopleList = (example: string, ifLeftOut: string) =>
  nonEmptyList(
    z
      .string({ error: 'must be a Slack user id (U…) or user group id (S…)' })
      .regex(SLACK_ID, { error: 'must be a Slack user id (U…) or user group id (S…)' }),
    'Slack user or user group ids',
    example,
    ifLeftOut,
  );

const EscalateSchema = z.strictObject(
  {
    after: WaitSchema,
    to: peopleList('[S0ONCALL]', 'and the escalate key with it'),
  },
  { error: 'must be a map like { after: 2h, to: [S0ONCALL] }' },
);

/** "09:00" -> 540; "24:00" only where a day's end is meant (`to`). */
const timeOfDay = (endOfDay: boolean) =>
  z.string({ error: 'must be a time of day in quotes, like "09:00"' }).transform((text, ctx) => {
    const match = /^([01]?\d|2[0-4]):([0-5]\d)$/.exec(text.trim());
    const minute = match ? Number(match[1]) * 60 + Number(match[2]) : Number.NaN;
    if (!(minute <= (endOfDay ? 1440 : 1439))) {
      ctx.addIssue({
        code: 'custom',
        message: `must be a time of day from "00:00" to "${endOfDay ? '24:00' : '23:59'}", like "09:00"`,
      });
      return z.NEVER;
    }
    return minute;
  });

const WindowSchema = z
  .strictObject(
    {
      days: nonEmptyList(
        z.preprocess(
          (day) => (typeof day === 'string' ? day.trim().toLowerCase() : day),
          z.enum(WEEKDAYS, { error: `must be a day: ${WEEKDAYS.join(', ')}` }),
        ),
        'days',
        '[mon, tue, wed, thu]',
        'and the window with it, to allow changes at any time',
      ),
      from: timeOfDay(false),
      to: timeOfDay(true),
      tz: z
        .string({ error: 'must be a time zone like Europe/Berlin' })
        .refine(isTimeZone, { error: 'is not a time zone I know; write it like Europe/Berlin or UTC' }),
    },
    { error: 'must be a map like { days: [mon, tue, wed, thu], from: "09:00", to: "16:00", tz: Europe/Berlin }' },
  )
  .refine((window) => window.from !== window.to, {
    path: ['to'],
    error: 'must differ from from (for a whole day write from: "00:00", to: "24:00")',
  });

/** A calendar date as YAML gives it unquoted (2026-12-20), checked to exist. */
const DateSchema = z.string({ error: 'must be a date like 2026-12-20' }).refine(
  (text) => {
    const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
    if (!match) return false;
    const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
    return date.toISOString().startsWith(text);
  },
  { error: 'must be a date that exists, written like 2026-12-20' },
);

const FreezeSchema = z
  .strictObject(
    {
      from: DateSchema,
      to: DateSchema,
      reason: z
        .string({ error: 'is required: the sentence a refused requester reads, like "Year-end freeze"' })
        .trim()
        .min(1, { error: 'must not be empty' })
        .max(500, { error: 'must be at most 500 characters' }),
    },
    { error: 'must be a map like { from: 2026-12-20, to: 2027-01-04, reason: "Year-end freeze" }' },
  )
  .refine((freeze) => freeze.from <= freeze.to, { path: ['to'], error: 'is before from' });

const RuleSchema = z
  .strictObject(
    {
      name: z
        .string({ error: 'is required: a short name people will see in requests and the audit' })
        .trim()
        .min(1, { error: 'must not be empty' })
        .max(200, { error: 'must be at most 200 characters' }),
      match: MatchSchema,
      approvals: z
        .number({ error: `must be a whole number from 0 to ${MAX_APPROVALS}` })
        .int({ error: `must be a whole number from 0 to ${MAX_APPROVALS}` })
        .min(0, { error: `must be a whole number from 0 to ${MAX_APPROVALS}` })
        .max(MAX_APPROVALS, { error: `must be at most ${MAX_APPROVALS}` })
        .optional(),
      approvers: peopleList('[S0DBAS, U0APP1]', 'to use APPROVERS').optional(),
      deny: z
        .string({ error: 'must be the sentence shown to the requester' })
        .trim()
        .min(1, { error: 'must be the sentence shown to the requester' })
        .max(1000, { error: 'must be at most 1000 characters' })
        .optional(),
      remind: WaitSchema.optional(),
      escalate: EscalateSchema.optional(),
      channel: z
        .string({ error: 'must be a Slack channel id (C…), like C0DBAS' })
        .regex(/^[CG][A-Z0-9]{2,}$/, { error: 'must be a Slack channel id (C…), like C0DBAS' })
        .optional(),
      notify: z.enum(NOTIFY, { error: `must be one of ${NOTIFY.join(', ')}` }).optional(),
      require: RequireSchema.optional(),
      window: WindowSchema.optional(),
      freeze: z
        .array(FreezeSchema, {
          error: 'must be a list of freezes, like [{ from: 2026-12-20, to: 2027-01-04, reason: "Year-end freeze" }]',
        })
        .min(1, { error: 'must not be empty (leave the key out when nothing is frozen)' })
        .optional(),
    },
    { error: 'must be a map with name, match and either approvals or deny' },
  )
  // Runs even when a field of the rule failed, so that a file's every problem is listed at once.
  .superRefine((rule, ctx) => ruleShapeProblems(rule, ctx), { when: (payload) => isRecord(payload.value) });

/** Checks across a rule's keys, on values that may themselves be invalid. */
function ruleShapeProblems(rule: Record<string, unknown>, ctx: z.RefinementCtx): void {
  const { deny, approvals, approvers, remind, escalate, channel, notify, require, window, freeze } = rule;
  for (const [key, value] of [
    ['window', window],
    ['freeze', freeze],
  ] as const) {
    if (value !== undefined && deny !== undefined && approvals === undefined)
      ctx.addIssue({ code: 'custom', path: [key], message: 'has no effect in a deny rule: it refuses at any time' });
  }
  for (const [key, value] of [
    ['remind', remind],
    ['escalate', escalate],
    ['channel', channel],
    ['notify', notify],
  ] as const) {
    if (value !== undefined && (deny !== undefined || approvals === 0))
      ctx.addIssue({ code: 'custom', path: [key], message: 'has no effect in a rule that asks for no approval' });
  }
  if (deny !== undefined && approvals !== undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['deny'],
      message: 'and approvals cannot be in one rule: a rule either refuses (deny) or asks for approvals',
    });
  } else if (deny === undefined && approvals === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: [],
      message: 'needs either approvals (0 or more) or deny (the sentence shown when it refuses)',
    });
  }
  if (approvers !== undefined && approvals === undefined && deny !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['approvers'], message: 'has no effect in a deny rule' });
  }
  if (require !== undefined && deny !== undefined && approvals === undefined) {
    ctx.addIssue({ code: 'custom', path: ['require'], message: 'has no effect in a deny rule: it refuses anyway' });
  }
  if (approvers !== undefined && approvals === 0) {
    ctx.addIssue({ code: 'custom', path: ['approvers'], message: 'has no effect with approvals: 0' });
  }
  const people = new Set(
    Array.isArray(approvers) ? approvers.filter((id): id is string => typeof id === 'string') : [],
  );
  const onlyPeople = people.size > 0 && [...people].every((id) => id.startsWith('U'));
  if (onlyPeople && typeof approvals === 'number' && approvals > people.size) {
    ctx.addIssue({
      code: 'custom',
      path: ['approvals'],
      message: `asks for ${approvals} approvals but approvers lists only ${people.size} ${people.size === 1 ? 'person' : 'different people'}, so no request could ever be approved`,
    });
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const FileSchema = z.strictObject(
  {
    rules: z.array(RuleSchema, { error: 'must be a list of rules (each starting with "- name: …")' }),
    breakglass: peopleList('[S0ONCALL, U0ALICE]', 'so that nobody may break glass').optional(),
    breakglass_max: WaitSchema.optional(),
  },
  { error: 'must be a map with a rules: list' },
);

type ParsedRule = z.infer<typeof RuleSchema>;

export function parsePolicy(text: string): PolicyParse {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_POLICY_BYTES)
    return { ok: false, problems: [`The policy file has ${bytes} bytes; the limit is ${MAX_POLICY_BYTES}.`] };
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const lineOf = (offset: number | undefined) => (offset === undefined ? undefined : lines.linePos(offset).line);
  const yamlProblems = [...doc.errors, ...doc.warnings].map((e) =>
    located(lineOf(e.pos[0]), `${firstLine(e.message)}`),
  );
  if (doc.errors.length > 0) return { ok: false, problems: yamlProblems };

  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    return {
      ok: false,
      problems: [
        ...yamlProblems,
        `The policy file could not be read: ${error instanceof Error ? error.message : String(error)}.`,
      ],
    };
  }
  if (data === null || data === undefined)
    return { ok: false, problems: ['The policy file is empty: it needs a rules: list (see the README).'] };
  const parsed = FileSchema.safeParse(data);
  const problems = [...yamlProblems];
  if (!parsed.success) problems.push(...parsed.error.issues.map((issue) => issueProblem(issue, doc, lineOf, data)));
  // From the data as written, so a repeated name is reported alongside every other problem.
  problems.push(...duplicateNames(data, doc, lineOf));
  if (problems.length > 0 || !parsed.success) return { ok: false, problems: problems.sort(byLine) };

  const rules = parsed.data.rules.map((rule, index) => toRule(rule, lineOf(nodeOffset(doc, ['rules', index]))));
  const { breakglass, breakglass_max: breakglassMaxMs } = parsed.data;
  return {
    ok: true,
    policy: {
      rules,
      ...(breakglass ? { breakglass: [...new Set(breakglass)] } : {}),
      breakglassMaxMs: breakglassMaxMs ?? DEFAULT_BREAKGLASS_MAX_MS,
      digest: createHash('sha256').update(text, 'utf8').digest('hex'),
    },
  };
}

function toRule(rule: ParsedRule, line: number | undefined): Rule {
  const match: RuleMatch = {
    ...(rule.match.tags ? { tags: rule.match.tags } : {}),
    ...(rule.match.services ? { services: rule.match.services } : {}),
    ...(rule.match.changes ? { changes: [...new Set(rule.match.changes)] } : {}),
    ...(rule.match.risks ? { risks: [...new Set(rule.match.risks)] } : {}),
  };
  const base = { name: rule.name, match, ...(line === undefined ? {} : { line }) };
  if (rule.deny !== undefined) return { ...base, effect: 'deny', deny: rule.deny };
  const require = requiresOf(rule.require);
  return {
    ...base,
    effect: 'approve',
    approvals: rule.approvals ?? 0,
    ...(rule.approvers ? { approvers: [...new Set(rule.approvers)] } : {}),
    ...(rule.remind === undefined ? {} : { remindMs: rule.remind }),
    ...(rule.escalate ? { escalate: { afterMs: rule.escalate.after, to: [...new Set(rule.escalate.to)] } } : {}),
    ...(rule.channel === undefined ? {} : { channel: rule.channel }),
    ...(rule.notify === undefined ? {} : { notify: rule.notify }),
    ...(require ? { require } : {}),
    ...(rule.window
      ? {
          window: {
            days: [...new Set(rule.window.days)],
            fromMinute: rule.window.from,
            toMinute: rule.window.to,
            tz: rule.window.tz,
          },
        }
      : {}),
    ...(rule.freeze ? { freezes: rule.freeze } : {}),
  };
}

/** `reason: false` and an empty map ask for nothing: left out, as if not written. */
function requiresOf(written: ParsedRule['require']): Requires | undefined {
  if (!written) return undefined;
  const require: Requires = {
    ...(written.reason ? { reason: true as const } : {}),
    ...(written.ticket !== undefined ? { ticket: written.ticket } : {}),
  };
  return Object.keys(require).length > 0 ? require : undefined;
}

function duplicateNames(
  data: unknown,
  doc: Document,
  lineOf: (offset: number | undefined) => number | undefined,
): string[] {
  const rules: unknown = typeof data === 'object' && data !== null ? Reflect.get(data, 'rules') : undefined;
  if (!Array.isArray(rules)) return [];
  const seen = new Map<string, number>();
  const problems: string[] = [];
  rules.forEach((_rule: unknown, index) => {
    const name = nameAt(data, index);
    if (name === undefined) return;
    const first = seen.get(name);
    if (first === undefined) seen.set(name, index);
    else
      problems.push(
        located(
          lineOf(nodeOffset(doc, ['rules', index, 'name'])),
          `${ruleLabel(index, name)}: name is already used by rule ${first + 1}; each rule needs its own name, as requests and the audit name rules`,
        ),
      );
  });
  return problems;
}

function issueProblem(
  issue: z.core.$ZodIssue,
  doc: Document,
  lineOf: (offset: number | undefined) => number | undefined,
  data: unknown,
): string {
  const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
  if (issue.code === 'unrecognized_keys') {
    const offset = keyOffset(doc, path, issue.keys[0]) ?? nodeOffset(doc, path);
    const allowed = KEYS_OF[context(path)];
    const keys = issue.keys.map((k) => `"${k}"`).join(', ');
    return located(
      lineOf(offset),
      `${where(path, data)}unknown key${issue.keys.length === 1 ? '' : 's'} ${keys} (allowed here: ${allowed.join(', ')})`,
    );
  }
  const message = issueMessage(issue, data, path, missingMessage);
  return located(lineOf(nodeOffset(doc, path)), `${where(path, data)}${fieldName(path)} ${message}`);
}

const MISSING: Record<string, string> = {
  rules: 'is missing: the file needs a rules: list',
  name: 'is required: a short name people will see in requests and the audit',
  match: 'is missing (use match: {} to match every request)',
  reason: 'is required: the sentence a refused requester reads, like "Year-end freeze"',
};

function missingMessage(path: Array<string | number>): string {
  return MISSING[String(path.at(-1))] ?? 'is missing';
}

function context(path: Array<string | number>): keyof typeof KEYS_OF {
  if (path.length === 0) return 'file';
  const last = path.at(-1);
  if (last === 'match' || last === 'require' || last === 'window') return last;
  if (path.at(-2) === 'freeze') return 'freeze';
  return 'rule';
}

/** "rule 2 "prod needs two": " for problems inside a rule, '' at the top. */
function where(path: Array<string | number>, data: unknown): string {
  if (path[0] !== 'rules' || typeof path[1] !== 'number') return '';
  return `${ruleLabel(path[1], nameAt(data, path[1]))}: `;
}

function ruleLabel(index: number, name: string | undefined): string {
  return name?.trim() ? `rule ${index + 1} ("${firstLine(name.trim()).slice(0, 80)}")` : `rule ${index + 1}`;
}

function nameAt(data: unknown, index: number): string | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const rules: unknown = Reflect.get(data, 'rules');
  const rule: unknown = Array.isArray(rules) ? rules[index] : undefined;
  const name: unknown = typeof rule === 'object' && rule !== null ? Reflect.get(rule, 'name') : undefined;
  return typeof name === 'string' ? name : undefined;
}

/** The key path inside a rule, as written in the file: "match.tags.env", "approvers[2]". */
function fieldName(path: Array<string | number>): string {
  const inner = path[0] === 'rules' && typeof path[1] === 'number' ? path.slice(2) : path;
  if (inner.length === 0) return path.length === 0 ? 'The policy file' : 'the rule';
  return inner.reduce<string>(
    (text, part) => (typeof part === 'number' ? `${text}[${part}]` : text ? `${text}.${part}` : part),
    '',
  );
}
