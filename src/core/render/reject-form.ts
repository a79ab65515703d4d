/**
 * The small form Reject opens: one Reason field. Its submission rejects through the same
 * exactly-once path as a click, and the reason is kept with the request and told to the requester.
 */
import { z } from 'zod';
import { checkReason, REASON_MAX_LENGTH, type Checked } from '../policy/justification.js';
import { code, truncate, LIMITS, type Block, type View } from './mrkdwn.js';
import type { ViewState } from './modal.js';

export const REJECT_CALLBACK = 'change_reject_reason';
export const REJECT_BLOCK = 'reject_reason';
const ACTION = 'value';

/** What the form remembers: which request, and where to answer the person once it is closed. */
export const RejectMetadataSchema = z.object({
  requestId: z.string().min(1).max(64),
  channelId: z.string().min(1).max(64).optional(),
});
export type RejectMetadata = z.infer<typeof RejectMetadataSchema>;

export function rejectView(metadata: RejectMetadata): View {
  return smallFormView({
    callbackId: REJECT_CALLBACK,
    metadata,
    title: 'Reject change',
    submit: 'Reject',
    intro: `Reject change request ${code(metadata.requestId)}? The requester is told, with your reason.`,
    inputs: [
      {
        type: 'input',
        block_id: REJECT_BLOCK,
        label: { type: 'plain_text', text: 'Reason' },
        element: {
          type: 'plain_text_input',
          action_id: ACTION,
          multiline: true,
          max_length: REASON_MAX_LENGTH,
          placeholder: { type: 'plain_text', text: 'Why not, and what to do instead' },
        },
      },
    ],
  });
}

/** A small form a button opens: a sentence saying what it is for, then its fields; Back closes it. */
export function smallFormView(form: {
  callbackId: string;
  metadata: unknown;
  title: string;
  submit: string;
  intro: string;
  inputs: Block[];
}): View {
  return {
    type: 'modal',
    callback_id: form.callbackId,
    private_metadata: JSON.stringify(form.metadata),
    title: { type: 'plain_text', text: form.title },
    submit: { type: 'plain_text', text: form.submit },
    close: { type: 'plain_text', text: 'Back' },
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: truncate(form.intro, LIMITS.sectionText) } },
      ...form.inputs,
    ],
  };
}

/** The reason as typed: required, trimmed, within the limit. */
export function rejectReasonOf(values: ViewState): Checked<string> {
  return checkReason(values[REJECT_BLOCK]?.[ACTION]?.value ?? '');
}

export const REJECT_FORM_GONE_TEXT = 'This form is out of date. Close it and click Reject on the request again.';
