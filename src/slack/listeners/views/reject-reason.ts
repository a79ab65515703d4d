import type { App } from '@slack/bolt';
import {
  REJECT_BLOCK,
  REJECT_CALLBACK,
  REJECT_FORM_GONE_TEXT,
  RejectMetadataSchema,
  rejectReasonOf,
} from '../../../core/render/reject-form.js';
import type { ListenerDeps } from '../deps.js';
import { registerFormAction } from './submission.js';

/** The Reject form: a missing reason is shown in the form; otherwise it rejects like a click, with the reason. */
export function registerRejectSubmission(app: App, deps: ListenerDeps): void {
  registerFormAction(app, deps, {
    callbackId: REJECT_CALLBACK,
    metadata: RejectMetadataSchema,
    goneBlock: REJECT_BLOCK,
    goneText: REJECT_FORM_GONE_TEXT,
    read(values) {
      const reason = rejectReasonOf(values);
      return reason.ok ? { ok: true, given: reason.value } : { ok: false, errors: { [REJECT_BLOCK]: reason.message } };
    },
    // The form carries the channel its Reject was clicked in (none from the Home tab).
    act: (userId, { requestId, channelId }, reason) =>
      deps.services.changeRequests.decide('reject', requestId, userId, {
        reason,
        origin: channelId ? { channelId } : {},
      }),
    describe: ({ requestId }) => `reject of ${requestId}`,
    channelOf: ({ channelId }) => channelId,
  });
}
