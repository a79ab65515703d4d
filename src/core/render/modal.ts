/**
 * The edit modal: built from the service, and read back into a ChangeIntent. Block ids are the
 * contract between the two halves, and plan problems map back onto them as inline errors.
 */
import { z } from 'zod';
import type { Unjustified } from '../policy/justification.js';
import { unjustifiedFieldErrors } from './policy.js';
import type { ServiceRecord } from '../service/schema.js';
import type { PlanProblem } from '../change/plan.js';
import { KIND_LIST } from '../change/kinds/index.js';
import type { KindForm, Shown } from '../change/kinds/form-parts.js';
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
import { code, distinctSentences, LIMITS, truncate, type Block, type View } from './mrkdwn.js';
import { ACTION, formNote, input, option, type ViewState } from './form-inputs.js';

export { ViewStateSchema, type ViewState } from './form-inputs.js';

export const EDIT_CALLBACK = 'edit_service';

/** The blocks of the modal that belong to no kind: when, for how long, why. */
export const BLOCK = {
  duration: 'duration',
  applyAt: 'apply_at',
  reason: 'reason',
  ticket: 'ticket',
} as const;

/** The kinds that have inputs in the modal, in the order it shows them. */
const FORMS: ReadonlyArray<{ field: string; form: KindForm; command: string }> = KIND_LIST.flatMap((kind) =>
  kind.form === undefined
    ? []
    : [{ field: kind.field, form: kind.form, command: kind.commands?.[0]?.name ?? kind.field }],
);

/**
 * Slack keeps at most 3,000 characters of private_metadata; the seal (slack/sealed-metadata.ts)
 * and the ids take the rest of this margin.
 */
const SHOWN_MAX = 2_800;

/** Every kind's input blocks by name ("mysql", "ipAdd"…), as the kind modules declare them. */
export const FORM_BLOCKS: Readonly<Record<string, string>> = Object.fromEntries(
  FORMS.flatMap(({ form }) => Object.entries(form.blockIds)),
);

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
  /** By kind (its field): what its inputs showed; each kind reads its own (kinds/form-parts.ts). */
  shown: z.record(z.string(), z.json()),
});
export type EditMetadata = z.infer<typeof EditMetadataSchema>;

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

/**
 * What each kind's inputs show. When it would not fit Slack's metadata (a record of absurd sizes),
 * the largest parts are left out, and their kinds are not offered in the form (kindBlocks): an
 * input whose shown value is unknown could not tell a change from a field left alone.
 */
export function editMetadata(service: ServiceRecord, channelId: string): EditMetadata {
  const shown: Record<string, Shown> = {};
  for (const { field, form } of FORMS) {
    const value = form.shown?.(service);
    if (value !== undefined) shown[field] = value;
  }
  const sizeOf = (key: string) => JSON.stringify(shown[key]).length;
  for (const key of Object.keys(shown).sort((a, b) => sizeOf(b) - sizeOf(a))) {
    if (JSON.stringify({ channelId, serviceId: service.id, shown }).length <= SHOWN_MAX) break;
    delete shown[key];
  }
  return { channelId, serviceId: service.id, shown };
}

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
    ...kindBlocks(service, metadata.shown),
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

/** Each kind's inputs in table order, a section's heading over the first kind of it that has any. */
function kindBlocks(service: ServiceRecord, shown: EditMetadata['shown']): Block[] {
  const blocks: Block[] = [];
  let section: string | undefined;
  for (const { field, form, command } of FORMS) {
    const left = form.shown?.(service) !== undefined && shown[field] === undefined;
    const own = left
      ? [formNote(`${command}: too large to edit in this form; use the ${command} command.`)]
      : form.blocks(service, shown[field]);
    if (own.length === 0) continue;
    if (form.section !== undefined && form.section !== section)
      blocks.push({ type: 'header', text: { type: 'plain_text', text: form.section } });
    section = form.section;
    blocks.push(...own);
  }
  return blocks;
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

// ---------------------------------------------------------------------------------------------
// Reading a submission

/**
 * Reads what was filled in, kind by kind, once: fields left as the modal showed them are left out
 * of the intent, and fields that cannot be read at all are inline errors (the plan checks the rest).
 */
export function readSubmission(
  values: ViewState,
  shown: EditMetadata['shown'],
): { intent: ChangeIntent; problems: Record<string, string> } {
  const intent: ChangeIntent = {};
  const problems: Record<string, string> = {};
  for (const { field, form } of FORMS) {
    const reading = form.read(values, shown[field]);
    Object.assign(intent, reading.intent);
    Object.assign(problems, reading.problems);
  }
  return { intent, problems };
}

export const intentFromSubmission = (values: ViewState, shown: EditMetadata['shown']): ChangeIntent =>
  readSubmission(values, shown).intent;

export const formProblems = (values: ViewState, shown: EditMetadata['shown']): Record<string, string> =>
  readSubmission(values, shown).problems;

/** The input a plan problem is shown under: its kind's, else the first input (a problem of the whole request). */
function blockOfProblem(field: PlanProblem['field']): string {
  for (const { form } of FORMS) {
    const own = form.problemBlock?.[field as keyof ChangeIntent];
    if (own !== undefined) return own;
  }
  const kind = KIND_LIST.find((k) => (k.intents as readonly string[]).includes(field));
  const first = (form: KindForm | undefined) => (form ? Object.values(form.blockIds)[0] : undefined);
  return first(kind?.form) ?? first(FORMS[0]?.form) ?? BLOCK.reason;
}

/** response_action errors: one message per block (Slack shows it under the input). */
export function modalErrors(problems: PlanProblem[]): Record<string, string> {
  const byBlock = new Map<string, string[]>();
  for (const problem of problems) {
    const block = blockOfProblem(problem.field);
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
