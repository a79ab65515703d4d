import type { App } from '@slack/bolt';
import { clickFailureText, messageOf } from '../../../core/render/errors.js';
import { section } from '../../../core/render/mrkdwn.js';
import {
  REJECT_BLOCK,
  REJECT_CALLBACK,
  REJECT_FORM_GONE_TEXT,
  RejectMetadataSchema,
  rejectReasonOf,
} from '../../../core/render/reject-form.js';
import { isStoreUnavailable } from '../../../ports/store-errors.js';
import type { ListenerDeps } from '../deps.js';
import { formSubmission } from './submission.js';

/**
 * The Reject form submitted: a missing reason is shown in the form; otherwise the form closes
 * at once (Slack's 3 s) and the rejection runs like a click, answered privately in the channel.
 */
export function registerRejectSubmission(app: App, deps: ListenerDeps): void {
  const Submission = formSubmission(RejectMetadataSchema, deps.formSeal);
  app.view(REJECT_CALLBACK, async ({ ack, body }) => {
    const parsed = Submission.safeParse(body);
    if (!parsed.success)
      return void (await ack({ response_action: 'errors', errors: { [REJECT_BLOCK]: REJECT_FORM_GONE_TEXT } }));
    const { user, view } = parsed.data;
    const reason = rejectReasonOf(view.state.values);
    if (!reason.ok) return void (await ack({ response_action: 'errors', errors: { [REJECT_BLOCK]: reason.message } }));
    await ack();
    const { requestId, channelId } = view.private_metadata;
    const outcome = await deps.services.changeRequests
      // The form carries the channel its Reject was clicked in (none from the Home tab).
      .decide('reject', requestId, user.id, { reason: reason.value, origin: channelId ? { channelId } : {} })
      .catch((error: unknown) => {
        deps.services.logger.error(`reject of ${requestId} failed:`, messageOf(error));
        return { text: clickFailureText(isStoreUnavailable(error)) };
      });
    if (outcome) await tell(deps, user.id, channelId, outcome.text);
  });
}

/** Privately in the request's channel; where that fails (or is unknown), in a DM. */
export async function tell(
  deps: ListenerDeps,
  userId: string,
  channelId: string | undefined,
  text: string,
): Promise<void> {
  const message = { text, blocks: [section(text)] };
  try {
    if (!channelId) throw new Error('no channel');
    await deps.messenger.ephemeral(channelId, userId, message);
  } catch {
    await deps.messenger.dm(userId, message).catch((error: unknown) => {
      deps.services.logger.warn(`could not answer ${userId}'s form: ${messageOf(error)}`);
    });
  }
}
