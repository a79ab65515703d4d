import type { App } from '@slack/bolt';
import {
  FOLLOW_ON_CALLBACK,
  FOLLOW_ON_FORM_GONE_TEXT,
  FollowOnMetadataSchema,
  followOnJustificationOf,
} from '../../../core/render/follow-on-form.js';
import { BLOCK } from '../../../core/render/modal.js';
import type { ListenerDeps } from '../deps.js';
import { registerFormAction } from './submission.js';

/**
 * The reason and ticket an Extend or Undo was asked for: what is missing is shown in the form;
 * otherwise it closes at once (Slack's 3 s) and the click runs again with them, answered privately.
 */
export function registerFollowOnSubmission(app: App, deps: ListenerDeps): void {
  registerFormAction(app, deps, {
    callbackId: FOLLOW_ON_CALLBACK,
    metadata: FollowOnMetadataSchema,
    goneBlock: BLOCK.reason,
    goneText: FOLLOW_ON_FORM_GONE_TEXT,
    read(values, { asks }) {
      const given = followOnJustificationOf(values, asks);
      return given.ok ? { ok: true, given: given.given } : { ok: false, errors: given.errors };
    },
    // Judged as the click that opened the form: where it came from travels in the form.
    act(userId, { action, originalId, channelId }, given) {
      const temporary = deps.services.temporary;
      const origin = channelId ? { channelId } : {};
      return action === 'extend'
        ? temporary.extend(originalId, userId, origin, given)
        : temporary.undo(originalId, userId, origin, given);
    },
    describe: ({ action, originalId }) => `${action} of ${originalId}`,
    channelOf: ({ channelId }) => channelId,
  });
}
