import type { App } from '@slack/bolt';
import { clickFailureText, messageOf } from '../../../core/render/errors.js';
import {
  FOLLOW_ON_CALLBACK,
  FOLLOW_ON_FORM_GONE_TEXT,
  FollowOnMetadataSchema,
  followOnJustificationOf,
} from '../../../core/render/follow-on-form.js';
import { BLOCK } from '../../../core/render/modal.js';
import { isStoreUnavailable } from '../../../ports/store-errors.js';
import type { ListenerDeps } from '../deps.js';
import { formSubmission } from './submission.js';
import { tell } from './reject-reason.js';

/**
 * The reason and ticket an Extend or Undo was asked for: what is missing is shown in the form;
 * otherwise it closes at once (Slack's 3 s) and the click runs again with them, answered privately.
 */
export function registerFollowOnSubmission(app: App, deps: ListenerDeps): void {
  const Submission = formSubmission(FollowOnMetadataSchema, deps.formSeal);
  app.view(FOLLOW_ON_CALLBACK, async ({ ack, body }) => {
    const parsed = Submission.safeParse(body);
    if (!parsed.success)
      return void (await ack({ response_action: 'errors', errors: { [BLOCK.reason]: FOLLOW_ON_FORM_GONE_TEXT } }));
    const { user, view } = parsed.data;
    const { action, originalId, channelId, asks } = view.private_metadata;
    const given = followOnJustificationOf(view.state.values, asks);
    if (!given.ok) return void (await ack({ response_action: 'errors', errors: given.errors }));
    await ack();
    const temporary = deps.services.temporary;
    // Judged as the click that opened the form: where it came from travels in the form.
    const origin = channelId ? { channelId } : {};
    const outcome = await (
      action === 'extend'
        ? temporary.extend(originalId, user.id, origin, given.given)
        : temporary.undo(originalId, user.id, origin, given.given)
    ).catch((error: unknown) => {
      deps.services.logger.error(`${action} of ${originalId} failed:`, messageOf(error));
      return { text: clickFailureText(isStoreUnavailable(error)) };
    });
    if (outcome) await tell(deps, user.id, channelId, outcome.text);
  });
}
