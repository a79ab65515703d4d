import type { App } from '@slack/bolt';
import {
  CONFIRM_BLOCK,
  CONFIRM_CALLBACK,
  CONFIRM_FORM_GONE_TEXT,
  ConfirmMetadataSchema,
  nameMismatchText,
  typedNameOf,
} from '../../../core/render/confirm-form.js';
import { clickFailureText, messageOf } from '../../../core/render/errors.js';
import { isStoreUnavailable } from '../../../ports/store-errors.js';
import type { ListenerDeps } from '../deps.js';
import { tell } from './reject-reason.js';
import { formSubmission } from './submission.js';

/**
 * The Approve form of a change that cannot be taken back: a name that is not the target's is
 * shown in the form; otherwise the form closes at once and the approval runs like a click, with
 * the name (the flow checks it again), answered privately.
 */
export function registerConfirmSubmission(app: App, deps: ListenerDeps): void {
  const Submission = formSubmission(ConfirmMetadataSchema, deps.formSeal);
  app.view(CONFIRM_CALLBACK, async ({ ack, body }) => {
    const parsed = Submission.safeParse(body);
    if (!parsed.success)
      return void (await ack({ response_action: 'errors', errors: { [CONFIRM_BLOCK]: CONFIRM_FORM_GONE_TEXT } }));
    const { user, view } = parsed.data;
    const { requestId, channelId, name } = view.private_metadata;
    const typed = typedNameOf(view.state.values);
    if (typed !== name)
      return void (await ack({ response_action: 'errors', errors: { [CONFIRM_BLOCK]: nameMismatchText(name) } }));
    await ack();
    const outcome = await deps.services.changeRequests
      .decide('approve', requestId, user.id, { confirmedName: typed, origin: channelId ? { channelId } : {} })
      .catch((error: unknown) => {
        deps.services.logger.error(`approval of ${requestId} failed:`, messageOf(error));
        return { text: clickFailureText(isStoreUnavailable(error)) };
      });
    if (outcome) await tell(deps, user.id, channelId, outcome.text);
  });
}
