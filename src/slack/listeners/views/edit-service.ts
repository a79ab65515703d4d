import type { App } from '@slack/bolt';
import { submitEdit } from '../../../commands/edit-submission.js';
import { EDIT_CALLBACK, EditMetadataSchema } from '../../../core/render/modal.js';
import type { ListenerDeps } from '../deps.js';
import { formSubmission } from './submission.js';

export function registerEditSubmission(app: App, deps: ListenerDeps): void {
  const Submission = formSubmission(EditMetadataSchema, deps.formSeal);
  app.view(EDIT_CALLBACK, async ({ ack, body }) => {
    const parsed = Submission.safeParse(body);
    if (!parsed.success) {
      await ack({
        response_action: 'errors',
        errors: { name: 'This form is out of date. Close it and run the edit command again.' },
      });
      return;
    }
    const { user, view } = parsed.data;
    await submitEdit(
      { metadata: view.private_metadata, userId: user.id, values: view.state.values },
      (errors) => (errors ? ack({ response_action: 'errors', errors }) : ack()),
      deps.services,
      deps.messenger,
    );
  });
}
