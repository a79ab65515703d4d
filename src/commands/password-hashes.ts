/**
 * `reset-password SERVICE with-hash`: the command opens a form (a trigger id lives 3 s, so at
 * once); its submission checks the hashes' shape (inline errors), seals them in the secret vault
 * for as long as the request may wait, and files the reset with only their id in it. The hashes
 * are never in the request, its messages, the log or Redis in clear; applying takes them back
 * once (approval/flow-lease.ts).
 */
import { hashesText } from '../core/change/kinds/password.js';
import type { ChangeIntent } from '../core/change/types.js';
import { filedText } from '../core/render/grant.js';
import { cloudErrorText, messageOf, STORE_DOWN_TEXT } from '../core/render/errors.js';
import { distinctSentences, esc, section } from '../core/render/mrkdwn.js';
import { hashesFromSubmission, passwordHashView, type PasswordFormMetadata } from '../core/render/password-form.js';
import type { ViewState } from '../core/render/modal.js';
import { CloudApiError } from '../core/service/api-error.js';
import type { Command } from '../core/command/parse.js';
import type { Messenger } from '../ports/messenger.js';
import { isStoreUnavailable } from '../ports/store-errors.js';
import { servicesOfChannel } from './channel.js';
import { replyText, type BotServices, type Invocation } from './context.js';
import type { SubmissionAck } from './edit-submission.js';
import { lookupService } from './lookup.js';

const DEFAULT_HOLD_MS = 24 * 3_600_000;

/** Opens the form for the hashes; nothing is read or filed until it is submitted. */
export async function openPasswordHashForm(
  command: Extract<Command, { kind: 'change' }>,
  inv: Invocation,
  s: BotServices,
): Promise<void> {
  if (command.when !== undefined || command.durationMs !== undefined)
    return replyText(
      inv,
      ':warning: A reset with hashes is asked for now, never at a time or for a while: leave out at and for.',
    );
  const metadata: PasswordFormMetadata = {
    service: command.service,
    channelId: inv.channelId,
    ...(command.reason !== undefined ? { reason: command.reason } : {}),
    ...(command.ticket !== undefined ? { ticket: command.ticket } : {}),
  };
  await s.modals.open(inv.triggerId, passwordHashView(metadata));
}

export interface PasswordHashSubmission {
  metadata: PasswordFormMetadata;
  userId: string;
  values: ViewState;
}

/** The form submitted: wrong shapes shown in it; otherwise it closes and the request is filed. */
export async function submitPasswordHashes(
  submission: PasswordHashSubmission,
  ack: SubmissionAck,
  everywhere: BotServices,
  messenger: Messenger,
): Promise<void> {
  const checked = hashesFromSubmission(submission.values);
  if (!checked.ok) return ack(checked.problems);
  await ack();
  const tell = (text: string) => whisper(messenger, submission, text, everywhere);
  const here = servicesOfChannel(everywhere, submission.metadata.channelId);
  if (!here.ok) return tell(here.text);
  const s = here.services;
  try {
    const found = await lookupService(s, submission.metadata.service, submission.userId);
    if (!found.ok) return await tell(found.text);
    const sealedHashes = await s.secrets.seal(
      {
        ownerId: submission.userId,
        value: hashesText(checked.hashes),
        label: `the password hashes for ${found.service.name}`,
      },
      s.changeTtlMs ?? DEFAULT_HOLD_MS,
    );
    const intent: ChangeIntent = { passwordReset: { withHash: true, sealedHashes } };
    const { reason, ticket, channelId } = submission.metadata;
    const result = await s.changeRequests.request({
      channelId,
      userId: submission.userId,
      service: found.service,
      serviceReadAt: found.readAt,
      intent,
      ...(reason !== undefined ? { reason } : {}),
      ...(ticket !== undefined ? { ticket } : {}),
      askedBy: 'form',
    });
    if (result.ok) return await tell(filedText(result.request, 'the channel'));
    await tell(
      'text' in result
        ? result.text
        : `:warning: The reset was not requested: ${distinctSentences(result.problems.map((p) => p.message))
            .map(esc)
            .join(' ')}`,
    );
  } catch (error) {
    if (error instanceof CloudApiError) return tell(cloudErrorText(error, 'Reading the service'));
    s.logger.error(`password hash submission failed: ${messageOf(error)}`);
    await tell(isStoreUnavailable(error) ? STORE_DOWN_TEXT : ':warning: The reset could not be requested. Try again.');
  }
}

/** Privately in the channel; where the bot cannot post there, in its direct messages instead. */
async function whisper(messenger: Messenger, submission: PasswordHashSubmission, text: string, s: BotServices) {
  const message = { text, blocks: [section(text)] };
  try {
    await messenger.ephemeral(submission.metadata.channelId, submission.userId, message);
  } catch {
    await messenger.post(submission.userId, message).catch((error: unknown) => {
      s.logger.error(`could not tell ${submission.userId} about their reset: ${messageOf(error)}`);
    });
  }
}
