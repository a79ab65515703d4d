import type { App } from '@slack/bolt';
import { submitPasswordHashes } from '../../../commands/password-hashes.js';
import { HASH_BLOCK, PASSWORD_HASH_CALLBACK, PasswordFormMetadataSchema } from '../../../core/render/password-form.js';
import type { ListenerDeps } from '../deps.js';
import { formSubmission } from './submission.js';

/** The form of `reset-password SERVICE with-hash`: its hashes checked inline, then the reset filed. */
export function registerPasswordHashSubmission(app: App, deps: ListenerDeps): void {
  const Submission = formSubmission(PasswordFormMetadataSchema, deps.formSeal);
  app.view(PASSWORD_HASH_CALLBACK, async ({ ack, body }) => {
    const parsed = Submission.safeParse(body);
    if (!parsed.success) {
      await ack({
        response_action: 'errors',
        errors: { [HASH_BLOCK]: 'This form is out of date. Close it and run reset-password … with-hash again.' },
      });
      return;
    }
    const { user, view } = parsed.data;
    await submitPasswordHashes(
      { metadata: view.private_metadata, userId: user.id, values: view.state.values },
      (errors) => (errors ? ack({ response_action: 'errors', errors }) : ack()),
      deps.services,
      deps.messenger,
    );
  });
}
