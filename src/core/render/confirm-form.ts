/**
 * The small form Approve opens for a change that cannot be taken back (a delete): the approver
 * types the target's name, as GitHub asks before deleting a repository. The flow checks the name
 * again when the approval arrives, so a click that skips the form approves nothing.
 */
import { z } from 'zod';
import { code, esc, type View } from './mrkdwn.js';
import type { ViewState } from './modal.js';
import { RejectMetadataSchema, smallFormView } from './reject-form.js';

export const CONFIRM_CALLBACK = 'change_confirm_name';
export const CONFIRM_BLOCK = 'confirm_name';
const ACTION = 'value';

/** Reject's metadata (which request, where to answer) and the name the approver must type. */
export const ConfirmMetadataSchema = RejectMetadataSchema.extend({ name: z.string().min(1).max(300) });
export type ConfirmMetadata = z.infer<typeof ConfirmMetadataSchema>;

export function confirmView(metadata: ConfirmMetadata): View {
  return smallFormView({
    callbackId: CONFIRM_CALLBACK,
    metadata,
    title: 'Approve deletion',
    submit: 'Approve',
    intro: `Change request ${code(metadata.requestId)} cannot be taken back once applied. To approve it, type the name of the service: ${code(metadata.name)}`,
    inputs: [
      {
        type: 'input',
        block_id: CONFIRM_BLOCK,
        label: { type: 'plain_text', text: 'Service name' },
        element: { type: 'plain_text_input', action_id: ACTION, max_length: 300 },
      },
    ],
  });
}

export const typedNameOf = (values: ViewState): string => (values[CONFIRM_BLOCK]?.[ACTION]?.value ?? '').trim();

export const nameMismatchText = (name: string) => `Type the service's name exactly as shown (${esc(name)}) to approve.`;

export const CONFIRM_FORM_GONE_TEXT = 'This form is out of date. Close it and click Approve on the request again.';
