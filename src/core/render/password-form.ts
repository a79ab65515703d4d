/**
 * The form `reset-password SERVICE with-hash` opens: the requester pastes the new password's
 * SHA-256 hash (base64, as the API documents) and optionally its MySQL double SHA-1 (hex). The bot
 * never sees a password; the hashes are checked for shape here, sealed in the secret vault once
 * submitted, and never shown in the request.
 */
import { z } from 'zod';
import { checkHashes, type PasswordHashes } from '../change/kinds/password.js';
import { smallFormView } from './reject-form.js';
import type { ViewState } from './modal.js';
import { code, esc, type Block, type View } from './mrkdwn.js';

export const PASSWORD_HASH_CALLBACK = 'password_hashes';
export const HASH_BLOCK = 'password_hash';
export const DOUBLE_SHA1_BLOCK = 'double_sha1';
const ACTION = 'value';

/** What the form remembers: the service as typed, where it was asked, and the command's reason and ticket. */
export const PasswordFormMetadataSchema = z.object({
  service: z.string().min(1).max(300),
  channelId: z.string().min(1).max(64),
  reason: z.string().max(2000).optional(),
  ticket: z.string().max(200).optional(),
});
export type PasswordFormMetadata = z.infer<typeof PasswordFormMetadataSchema>;

export function passwordHashView(metadata: PasswordFormMetadata): View {
  const field = (block: string, label: string, placeholder: string, optional: boolean): Block => ({
    type: 'input',
    block_id: block,
    optional,
    label: { type: 'plain_text', text: label },
    element: {
      type: 'plain_text_input',
      action_id: ACTION,
      max_length: 100,
      placeholder: { type: 'plain_text', text: placeholder },
    },
  });
  return smallFormView({
    callbackId: PASSWORD_HASH_CALLBACK,
    metadata,
    title: 'New password (hashes)',
    submit: 'Request',
    intro:
      `A new password for ${code(metadata.service)}, set from its hashes: the bot never sees the password. ` +
      `SHA-256 in base64: ${code('echo -n "PASSWORD" | sha256sum | tr -d "-" | xxd -r -p | base64')}. ` +
      `The hashes are not shown in the request and are dropped once it is applied. ${esc('Approval is asked as for any reset.')}`,
    inputs: [
      field(HASH_BLOCK, 'SHA-256 of the password (base64)', '44 characters ending in =', false),
      field(DOUBLE_SHA1_BLOCK, 'MySQL double SHA-1 (hex), optional', '40 hexadecimal characters', true),
    ],
  });
}

/** The hashes as pasted, checked for shape; the problems by block when they are not. */
export function hashesFromSubmission(
  values: ViewState,
): { ok: true; hashes: PasswordHashes } | { ok: false; problems: Record<string, string> } {
  const text = (block: string) => values[block]?.[ACTION]?.value ?? '';
  return checkHashes(text(HASH_BLOCK), text(DOUBLE_SHA1_BLOCK));
}
