/**
 * The edit modal: built from the service, and read back into a ChangeIntent. Block ids are the
 * contract between the two halves, and plan problems map back onto them as inline errors.
 */
import { z } from 'zod';
import type { Unjustified } from '../policy/justification.js';
import { unjustifiedFieldErrors } from './policy.js';
import { checkReplicaMemory, checkReplicas } from '../command/arguments.js';
import { baselineCapacity, type Range } from '../service/capacity.js';
import { IDLE_TIMEOUT_MIN_MINUTES, RELEASE_CHANNELS, type OutgoingTag, type ServiceRecord } from '../service/schema.js';
import { tagText, type PlanProblem } from '../change/plan.js';
import { currentState, mayLeaveDefaultChannel, mysqlEnabled } from '../change/state.js';
import { readDuration } from '../change/temporary.js';
import { APPLY_AT_FIELD } from '../command/when.js';
import type { ChangeIntent } from '../change/types.js';
import {
  checkReason,
  checkTicket,
  REASON_MAX_LENGTH,
  TICKET_MAX_LENGTH,
  type Justification,
} from '../policy/justification.js';
import { code, distinctSentences, LIMITS, truncate, type Block, type InputElement, type View } from './mrkdwn.js';

export const EDIT_CALLBACK = 'edit_service';
const ACTION = 'value';

export const BLOCK = {
  name: 'name',
  releaseChannel: 'release_channel',
  mysql: 'mysql',
  ipAdd: 'ip_add',
  ipRemove: 'ip_remove',
  attach: 'pe_attach',
  detach: 'pe_detach',
  tdeKey: 'tde_key',
  duration: 'duration',
  applyAt: 'apply_at',
  tags: 'tags',
  replicas: 'replicas',
  memory: 'replica_memory',
  idle: 'idle_scaling',
  idleTimeout: 'idle_timeout',
  reason: 'reason',
  ticket: 'ticket',
} as const;

/** Beyond this much tag text the modal would not fit its metadata; the tag commands remain. */
const TAGS_TEXT_MAX = 1500;

/** The "for how long" choices of the edit modal, each kept only when TEMPORARY_MAX_SECONDS allows it. */
const DURATION_CHOICES = ['30m', '1h', '2h', '4h', '8h', '1d', '3d', '7d'];

/**
 * What the modal showed when it opened. Slack sends untouched inputs back with their initial
 * values; comparing against these keeps a submission from reverting a colleague's change made
 * while the modal was open (the plan is made against a fresh read).
 */
export const EditMetadataSchema = z.object({
  channelId: z.string().min(1),
  serviceId: z.string().min(1),
  shown: z.object({
    name: z.string(),
    releaseChannel: z.string().optional(),
    mysql: z.boolean(),
    /** Absent when the modal had no tags field (too many tags to fit). */
    tags: z.array(z.object({ key: z.string(), value: z.string().optional() })).optional(),
    /** The Capacity section as shown ("3", "2-6", "8-32"); absent fields had no input. */
    capacity: z
      .object({
        replicas: z.string().optional(),
        memory: z.string().optional(),
        idle: z.boolean().optional(),
        idleTimeout: z.number().optional(),
      })
      .optional(),
  }),
});
export type EditMetadata = z.infer<typeof EditMetadataSchema>;

type Option = { text: { type: 'plain_text'; text: string }; value: string };
const option = (text: string, value: string): Option => ({
  text: { type: 'plain_text', text: truncate(text, LIMITS.plainOption) },
  value,
});

export function loadingView(title = 'Edit service'): View {
  return {
    type: 'modal',
    callback_id: `${EDIT_CALLBACK}_loading`,
    title: { type: 'plain_text', text: title },
    close: { type: 'plain_text', text: 'Close' },
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: ':hourglass: Reading the service from ClickHouse Cloud…' } },
    ],
  };
}

export function messageView(text: string, title = 'Edit service'): View {
  return {
    type: 'modal',
    callback_id: `${EDIT_CALLBACK}_message`,
    title: { type: 'plain_text', text: title },
    close: { type: 'plain_text', text: 'Close' },
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text: truncate(text, LIMITS.sectionText) } }],
  };
}

export function editMetadata(service: ServiceRecord, channelId: string): EditMetadata {
  const tags = currentState(service).tags;
  return {
    channelId,
    serviceId: service.id,
    shown: {
      name: service.name,
      mysql: mysqlEnabled(service),
      ...(service.releaseChannel ? { releaseChannel: service.releaseChannel } : {}),
      ...(tagsText(tags).length <= TAGS_TEXT_MAX ? { tags } : {}),
      capacity: capacityShown(service),
    },
  };
}

/** The Capacity section's initial values: "3" or "2-6" replicas, "16" or "8-32" GB per replica. */
function capacityShown(service: ServiceRecord): NonNullable<EditMetadata['shown']['capacity']> {
  const { replicas, replicaMemoryGb } = baselineCapacity(service);
  const asText = (range: Range | undefined) =>
    range === undefined ? undefined : range.min === range.max ? String(range.min) : `${range.min}-${range.max}`;
  const shown: NonNullable<EditMetadata['shown']['capacity']> = {};
  const replicasText = asText(replicas);
  const memoryText = service.tier === 'development' ? undefined : asText(replicaMemoryGb);
  if (replicasText !== undefined) shown.replicas = replicasText;
  if (memoryText !== undefined) shown.memory = memoryText;
  if (service.idleScaling !== undefined) shown.idle = service.idleScaling;
  if (service.idleTimeoutMinutes !== undefined) shown.idleTimeout = service.idleTimeoutMinutes;
  return shown;
}

/** The tags as people type them: "env=prod team=data keep". */
const tagsText = (tags: readonly OutgoingTag[]): string => tags.map(tagText).join(' ');

export function editView(service: ServiceRecord, metadata: EditMetadata, temporaryMaxMs = 7 * 24 * 3600 * 1000): View {
  const blocks: Block[] = [
    {
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text: truncate(
            `Changes become a request in the channel; a colleague approves it before anything is applied. Service ${code(service.id)}.`,
            LIMITS.sectionText,
          ),
        },
      ],
    },
    input(
      BLOCK.name,
      'Name',
      {
        type: 'plain_text_input',
        action_id: ACTION,
        initial_value: truncate(service.name, 150),
        max_length: Math.min(LIMITS.textInput, Math.max(50, [...service.name].length)),
      },
      { optional: true, hint: 'Letters, digits, spaces, hyphens and underscores; up to 50.' },
    ),
    ...releaseChannelBlocks(service),
    input(BLOCK.mysql, 'MySQL endpoint', {
      type: 'radio_buttons',
      action_id: ACTION,
      options: [option('On', 'on'), option('Off', 'off')],
      initial_option: mysqlEnabled(service) ? option('On', 'on') : option('Off', 'off'),
    }),
    input(
      BLOCK.ipAdd,
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
      BLOCK.ipRemove,
      'IP access entries to remove',
      (service.ipAccessList ?? [])
        .filter((e) => fitsValue(e.source))
        .map((e) => option(e.description ? `${e.source} ${e.description}` : e.source, e.source)),
    ),
    ...multiSelect(
      BLOCK.attach,
      'Private endpoints to attach',
      attachable(service).map((id) => option(id, id)),
    ),
    ...multiSelect(
      BLOCK.detach,
      'Private endpoints to detach',
      (service.privateEndpointIds ?? []).filter(fitsValue).map((id) => option(id, id)),
    ),
    ...tdeBlocks(service),
    ...tagBlocks(metadata.shown.tags),
    ...capacityBlocks(metadata.shown.capacity ?? {}),
    ...durationBlocks(temporaryMaxMs),
    applyAtBlock(),
    ...justificationBlocks(),
  ];
  return {
    type: 'modal',
    callback_id: EDIT_CALLBACK,
    private_metadata: JSON.stringify(metadata),
    title: { type: 'plain_text', text: 'Edit service' },
    submit: { type: 'plain_text', text: 'Request change' },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks: blocks.slice(0, LIMITS.modalBlocks),
  };
}

/** Replicas, memory per replica, idle scaling and its timeout, prefilled; a field left as shown asks nothing. */
function capacityBlocks(shown: NonNullable<EditMetadata['shown']['capacity']>): Block[] {
  const text = (blockId: string, label: string, initial: string | undefined, hint: string): Block[] =>
    initial === undefined
      ? []
      : [
          input(
            blockId,
            label,
            { type: 'plain_text_input', action_id: ACTION, initial_value: initial, max_length: 20 },
            { optional: true, hint },
          ),
        ];
  const blocks: Block[] = [
    ...text(
      BLOCK.replicas,
      'Replicas',
      shown.replicas,
      'A count like 3, or a range like 2-6 under horizontal autoscaling.',
    ),
    ...text(
      BLOCK.memory,
      'Memory per replica (GB)',
      shown.memory,
      'A multiple of 4 from 8 to 356, or a range like 16-64 under vertical autoscaling.',
    ),
  ];
  if (shown.idle !== undefined)
    blocks.push(
      input(BLOCK.idle, 'Idle scaling', {
        type: 'radio_buttons',
        action_id: ACTION,
        options: [option('On: pause when idle', 'on'), option('Off: never pause', 'off')],
        initial_option: shown.idle ? option('On: pause when idle', 'on') : option('Off: never pause', 'off'),
      }),
    );
  if (shown.idle !== undefined || shown.idleTimeout !== undefined)
    blocks.push(
      input(
        BLOCK.idleTimeout,
        'Idle timeout (minutes)',
        {
          type: 'number_input',
          action_id: ACTION,
          is_decimal_allowed: false,
          min_value: String(IDLE_TIMEOUT_MIN_MINUTES),
          ...(shown.idleTimeout === undefined ? {} : { initial_value: String(shown.idleTimeout) }),
        },
        { optional: true, hint: `How long without queries before it pauses; at least ${IDLE_TIMEOUT_MIN_MINUTES}.` },
      ),
    );
  if (blocks.length === 0) return [];
  return [{ type: 'header', text: { type: 'plain_text', text: 'Capacity' } }, ...blocks];
}

/** Optional: IP additions and MySQL switched on can be made temporary; the bot reverts them then. */
function durationBlocks(maxMs: number): Block[] {
  const options = DURATION_CHOICES.filter((text) => {
    const reading = readDuration(text);
    return reading.ok && reading.ms <= maxMs;
  }).map((text) => option(text, text));
  if (options.length === 0) return [];
  return [
    input(
      BLOCK.duration,
      'For how long',
      { type: 'static_select', action_id: ACTION, placeholder: { type: 'plain_text', text: 'Permanent' }, options },
      {
        optional: true,
        hint: 'For IP entries to add, MySQL switched on and capacity: the bot takes them back when the time is up.',
      },
    ),
  ];
}

/** The chosen "for how long", in ms; undefined when the change is meant to stay. */
export function durationFromSubmission(values: ViewState): { ms: number } | { problem: string } | undefined {
  const chosen = values[BLOCK.duration]?.[ACTION]?.selected_option?.value;
  if (chosen === undefined) return undefined;
  const reading = readDuration(chosen);
  return reading.ok ? { ms: reading.ms } : { problem: reading.message };
}

/**
 * Optional: when the change applies, as `at TIME` does on the command line. Slack's datetimepicker
 * shows the person's own time zone and answers an instant (Unix seconds), so nothing is ambiguous.
 */
function applyAtBlock(): Block {
  return input(
    BLOCK.applyAt,
    APPLY_AT_FIELD,
    { type: 'datetimepicker', action_id: ACTION },
    {
      optional: true,
      hint: 'Leave empty to apply the change once approved. Set, it waits, approved, for this time (in your time zone), and expires if nobody approves it by then.',
    },
  );
}

/**
 * What Slack sends for the picker: `selected_date_time` in Unix seconds (10 digits), null or
 * absent when left empty. A value in milliseconds or of another element is not taken as a time.
 */
const PickedTime = z.object({
  type: z.literal('datetimepicker'),
  selected_date_time: z.number().int().positive().lt(10_000_000_000).nullish(),
});

export const APPLY_AT_UNREADABLE = `I could not read the time picked in ${APPLY_AT_FIELD}. Pick the date and the time again, or leave it empty to have the change applied as soon as it is approved.`;

/** The picked time, in ms; undefined when left empty (applied once approved). Its limits are when.ts's applyAtProblem. */
export function applyAtFromSubmission(values: ViewState): { at: number } | { problem: string } | undefined {
  const state = values[BLOCK.applyAt]?.[ACTION];
  if (state === undefined) return undefined;
  const parsed = PickedTime.safeParse(state);
  if (!parsed.success) return { problem: APPLY_AT_UNREADABLE };
  const seconds = parsed.data.selected_date_time;
  return seconds === null || seconds === undefined ? undefined : { at: seconds * 1000 };
}

/** Reason and Ticket: optional here, since only some policy rules ask for them (the request says which). */
export function justificationBlocks(): Block[] {
  return [
    input(
      BLOCK.reason,
      'Reason',
      {
        type: 'plain_text_input',
        action_id: ACTION,
        multiline: true,
        max_length: REASON_MAX_LENGTH,
        placeholder: { type: 'plain_text', text: 'Why this change' },
      },
      { optional: true, hint: 'Shown with the request and kept in the history.' },
    ),
    input(
      BLOCK.ticket,
      'Ticket',
      {
        type: 'plain_text_input',
        action_id: ACTION,
        max_length: TICKET_MAX_LENGTH,
        placeholder: { type: 'plain_text', text: 'OPS-123' },
      },
      { optional: true },
    ),
  ];
}

/** The Reason and Ticket fields as given, or inline errors for those that cannot be taken. */
export function justificationFromSubmission(
  values: ViewState,
): { ok: true; justification: Justification } | { ok: false; errors: Record<string, string> } {
  const text = (block: string) => values[block]?.[ACTION]?.value?.trim() || undefined;
  const reasonText = text(BLOCK.reason);
  const ticketText = text(BLOCK.ticket);
  const reason = reasonText === undefined ? undefined : checkReason(reasonText);
  const ticket = ticketText === undefined ? undefined : checkTicket(ticketText);
  const errors: Record<string, string> = {};
  if (reason && !reason.ok) errors[BLOCK.reason] = reason.message;
  if (ticket && !ticket.ok) errors[BLOCK.ticket] = ticket.message;
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return {
    ok: true,
    justification: {
      ...(reason?.ok ? { reason: reason.value } : {}),
      ...(ticket?.ok ? { ticket: ticket.value } : {}),
    },
  };
}

const fitsValue = (value: string) => value.length > 0 && value.length <= LIMITS.optionValue;

function attachable(service: ServiceRecord): string[] {
  const attached = new Set(service.privateEndpointIds ?? []);
  return (service.availablePrivateEndpointIds ?? []).filter((id) => !attached.has(id) && fitsValue(id));
}

function input(
  blockId: string,
  label: string,
  element: InputElement,
  extra: { optional?: boolean; hint?: string } = {},
): Block {
  return {
    type: 'input',
    block_id: blockId,
    label: { type: 'plain_text', text: label },
    element,
    ...(extra.optional ? { optional: true } : {}),
    ...(extra.hint ? { hint: { type: 'plain_text', text: extra.hint } } : {}),
  };
}

function releaseChannelBlocks(service: ServiceRecord): Block[] {
  // A development service already on the default channel has nothing to choose.
  if (!mayLeaveDefaultChannel(service) && (service.releaseChannel ?? 'default') === 'default') {
    return [
      {
        type: 'context',
        elements: [
          { type: 'mrkdwn', text: 'Release channel: default (development services stay on the default channel).' },
        ],
      },
    ];
  }
  const channels = mayLeaveDefaultChannel(service) ? RELEASE_CHANNELS : (['default'] as const);
  const options = channels.map((c) => option(c, c));
  const current = options.find((o) => o.value === service.releaseChannel);
  return [
    input(
      BLOCK.releaseChannel,
      'Release channel',
      { type: 'static_select', action_id: ACTION, options, ...(current ? { initial_option: current } : {}) },
      { optional: true },
    ),
  ];
}

/** Up to 100 options a plain select; beyond that, groups of 100 (Slack's limits). */
function multiSelect(blockId: string, label: string, options: Option[]): Block[] {
  if (options.length === 0) return [];
  const size = LIMITS.staticSelectOptions;
  const grouped =
    options.length <= size
      ? { options }
      : {
          option_groups: Array.from({ length: Math.min(100, Math.ceil(options.length / size)) }, (_, i) => ({
            label: { type: 'plain_text' as const, text: `${i * size + 1}–${Math.min(options.length, (i + 1) * size)}` },
            options: options.slice(i * size, (i + 1) * size),
          })),
        };
  return [
    input(
      blockId,
      label,
      {
        type: 'multi_static_select',
        action_id: ACTION,
        placeholder: { type: 'plain_text', text: 'Choose…' },
        ...grouped,
      },
      { optional: true },
    ),
  ];
}

function tdeBlocks(service: ServiceRecord): Block[] {
  if (service.hasTransparentDataEncryption !== true) return [];
  return [
    input(
      BLOCK.tdeKey,
      'Rotate encryption key to',
      {
        type: 'plain_text_input',
        action_id: ACTION,
        max_length: LIMITS.textInput,
        ...(service.transparentDataEncryptionKeyId
          ? {
              placeholder: { type: 'plain_text', text: truncate(`now ${service.transparentDataEncryptionKeyId}`, 150) },
            }
          : {}),
      },
      { optional: true, hint: 'The id of the new key; leave empty to keep the current one.' },
    ),
  ];
}

function tagBlocks(shown: EditMetadata['shown']['tags']): Block[] {
  if (shown === undefined) {
    const text = 'Tags: too many to edit here; use the tag add and tag remove commands.';
    return [{ type: 'context', elements: [{ type: 'mrkdwn', text }] }];
  }
  const initial = tagsText(shown);
  return [
    input(
      BLOCK.tags,
      'Tags',
      {
        type: 'plain_text_input',
        action_id: ACTION,
        multiline: true,
        max_length: LIMITS.textInput,
        // TAGS_TEXT_MAX keeps the initial value well within max_length.
        ...(initial ? { initial_value: initial } : {}),
        placeholder: { type: 'plain_text', text: 'env=prod team=data' },
      },
      {
        optional: true,
        hint: 'KEY or KEY=VALUE, separated by spaces: letters, digits, dots, hyphens and underscores. Delete a tag to remove it.',
      },
    ),
  ];
}

// ---------------------------------------------------------------------------------------------
// Reading a submission

const ElementState = z.looseObject({
  value: z.string().nullish(),
  selected_option: z.object({ value: z.string() }).nullish(),
  selected_options: z.array(z.object({ value: z.string() })).nullish(),
});
export const ViewStateSchema = z.record(z.string(), z.record(z.string(), ElementState));
export type ViewState = z.infer<typeof ViewStateSchema>;

/** Reads what was filled in; fields left as the modal showed them are left out of the intent. */
export function intentFromSubmission(values: ViewState, shown: EditMetadata['shown']): ChangeIntent {
  const text = (block: string) => values[block]?.[ACTION]?.value?.trim() || undefined;
  const selected = (block: string) => values[block]?.[ACTION]?.selected_option?.value;
  const many = (block: string) => (values[block]?.[ACTION]?.selected_options ?? []).map((o) => o.value);
  const intent: ChangeIntent = {};
  const name = text(BLOCK.name);
  // The field comes back trimmed; a name with outer spaces left alone is not a rename.
  if (name !== undefined && name !== shown.name.trim()) intent.name = name;
  const channel = RELEASE_CHANNELS.find((c) => c === selected(BLOCK.releaseChannel));
  if (channel && channel !== shown.releaseChannel) intent.releaseChannel = channel;
  const mysql = selected(BLOCK.mysql);
  if (mysql && (mysql === 'on') !== shown.mysql) intent.mysqlEndpoint = mysql === 'on';
  const adds = parseIpLines(text(BLOCK.ipAdd) ?? '');
  if (adds.length > 0) intent.ipAdd = adds;
  if (many(BLOCK.ipRemove).length > 0) intent.ipRemove = many(BLOCK.ipRemove);
  if (many(BLOCK.attach).length > 0) intent.privateEndpointAttach = many(BLOCK.attach);
  if (many(BLOCK.detach).length > 0) intent.privateEndpointDetach = many(BLOCK.detach);
  const key = text(BLOCK.tdeKey);
  if (key) intent.tdeKeyId = key;
  if (shown.tags !== undefined && values[BLOCK.tags] !== undefined) {
    Object.assign(intent, tagEdits(shown.tags, parseTagWords(text(BLOCK.tags) ?? '')));
  }
  Object.assign(intent, capacityIntent(values, shown.capacity ?? {}).intent);
  return intent;
}

/**
 * The Capacity section: fields changed from what was shown, read like the commands read them, and
 * the inline errors of any that cannot be read (capacityProblems).
 */
function capacityIntent(
  values: ViewState,
  shown: NonNullable<EditMetadata['shown']['capacity']>,
): { intent: ChangeIntent; problems: Record<string, string> } {
  const intent: ChangeIntent = {};
  const problems: Record<string, string> = {};
  const text = (block: string) => values[block]?.[ACTION]?.value?.trim() || undefined;
  const replicas = text(BLOCK.replicas);
  if (replicas !== undefined && replicas !== shown.replicas) {
    const checked = checkReplicas(replicas);
    if (checked.ok) intent.replicas = checked.value;
    else problems[BLOCK.replicas] = checked.message;
  }
  const memory = text(BLOCK.memory);
  if (memory !== undefined && memory !== shown.memory) {
    const checked = checkReplicaMemory(memory);
    if (checked.ok) intent.replicaMemoryGb = checked.value;
    else problems[BLOCK.memory] = checked.message;
  }
  const idle = values[BLOCK.idle]?.[ACTION]?.selected_option?.value;
  const enabled = idle === undefined ? shown.idle : idle === 'on';
  const timeoutText = text(BLOCK.idleTimeout);
  const timeout = timeoutText === undefined ? undefined : Number(timeoutText);
  if (timeoutText !== undefined && !Number.isInteger(timeout))
    problems[BLOCK.idleTimeout] =
      `The idle timeout is a whole number of minutes; "${timeoutText.slice(0, 20)}" is not.`;
  const newTimeout = timeout !== undefined && Number.isInteger(timeout) && timeout !== shown.idleTimeout;
  if (enabled !== undefined && (enabled !== shown.idle || newTimeout))
    intent.idleScaling = newTimeout ? { enabled, timeoutMinutes: timeout } : { enabled };
  return { intent, problems };
}

/** Inline errors for Capacity fields that cannot be read at all (the plan checks the rest against the service). */
export function capacityProblems(values: ViewState, shown: EditMetadata['shown']): Record<string, string> {
  return capacityIntent(values, shown.capacity ?? {}).problems;
}

/** Words of the tags field, split on the first "="; the plan checks the alphabet. */
export function parseTagWords(text: string): OutgoingTag[] {
  return text
    .split(/[\s,]+/u)
    .filter(Boolean)
    .map((word) => {
      const eq = word.indexOf('=');
      return eq === -1 ? { key: word } : { key: word.slice(0, eq), value: word.slice(eq + 1) };
    });
}

/**
 * The difference between the tags the modal showed and the ones submitted: a deleted tag is
 * removed, a new or changed one added. A key typed twice is passed on so the plan refuses it.
 */
function tagEdits(shown: readonly OutgoingTag[], submitted: OutgoingTag[]): Pick<ChangeIntent, 'tagAdd' | 'tagRemove'> {
  const before = new Map(shown.map((tag) => [tag.key, tag.value ?? '']));
  const keys = submitted.map((tag) => tag.key);
  const twice = new Set(keys.filter((key, i) => keys.indexOf(key) !== i));
  const tagAdd = submitted.filter((tag) => twice.has(tag.key) || before.get(tag.key) !== (tag.value ?? ''));
  const tagRemove = shown.filter((tag) => !keys.includes(tag.key));
  return { ...(tagAdd.length > 0 ? { tagAdd } : {}), ...(tagRemove.length > 0 ? { tagRemove } : {}) };
}

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

const FIELD_BLOCK: Record<PlanProblem['field'], string> = {
  request: BLOCK.name,
  name: BLOCK.name,
  releaseChannel: BLOCK.releaseChannel,
  mysqlEndpoint: BLOCK.mysql,
  ipAdd: BLOCK.ipAdd,
  ipRemove: BLOCK.ipRemove,
  privateEndpointAttach: BLOCK.attach,
  privateEndpointDetach: BLOCK.detach,
  tdeKeyId: BLOCK.tdeKey,
  tagAdd: BLOCK.tags,
  tagRemove: BLOCK.tags,
  replicas: BLOCK.replicas,
  replicaMemoryGb: BLOCK.memory,
  idleScaling: BLOCK.idle,
  // Power has no field in the modal (stop, start and wake are commands).
  power: BLOCK.name,
};

/** response_action errors: one message per block (Slack shows it under the input). */
export function modalErrors(problems: PlanProblem[]): Record<string, string> {
  const byBlock = new Map<string, string[]>();
  for (const problem of problems) {
    const block = FIELD_BLOCK[problem.field];
    const messages = byBlock.get(block) ?? [];
    messages.push(problem.message);
    byBlock.set(block, messages);
  }
  return Object.fromEntries(
    [...byBlock].map(([block, messages]) => [block, truncate(distinctSentences(messages).join(' '), 2000)]),
  );
}

/** What a request lacks, as inline errors of a form's Reason and Ticket inputs: every field at once. */
export function justificationErrors(lacking: Unjustified): Record<string, string> {
  const errors = unjustifiedFieldErrors(lacking);
  return Object.fromEntries(
    (['reason', 'ticket'] as const).flatMap((field) => {
      const text = errors[field];
      return text === undefined ? [] : [[BLOCK[field], text]];
    }),
  );
}
