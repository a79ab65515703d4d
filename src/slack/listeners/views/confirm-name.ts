import type { App } from '@slack/bolt';
import {
  CONFIRM_BLOCK,
  CONFIRM_CALLBACK,
  CONFIRM_FORM_GONE_TEXT,
  ConfirmMetadataSchema,
  nameMismatchText,
  typedNameOf,
} from '../../../core/render/confirm-form.js';
import type { ListenerDeps } from '../deps.js';
import { registerFormAction } from './submission.js';

/**
 * The Approve form of a change that cannot be taken back: a name that is not the target's is
 * shown in the form; otherwise it approves like a click, with the name (the flow checks it again).
 */
export function registerConfirmSubmission(app: App, deps: ListenerDeps): void {
  registerFormAction(app, deps, {
    callbackId: CONFIRM_CALLBACK,
    metadata: ConfirmMetadataSchema,
    goneBlock: CONFIRM_BLOCK,
    goneText: CONFIRM_FORM_GONE_TEXT,
    read(values, { name }) {
      const typed = typedNameOf(values);
      return typed === name
        ? { ok: true, given: typed }
        : { ok: false, errors: { [CONFIRM_BLOCK]: nameMismatchText(name) } };
    },
    act: (userId, { requestId, channelId }, confirmedName) =>
      deps.services.changeRequests.decide('approve', requestId, userId, {
        confirmedName,
        origin: channelId ? { channelId } : {},
      }),
    describe: ({ requestId }) => `approval of ${requestId}`,
    channelOf: ({ channelId }) => channelId,
  });
}
