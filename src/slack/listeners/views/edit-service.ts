import type { App } from '@slack/bolt';
import { z } from 'zod';
import { submitEdit } from '../../../commands/edit-submission.js';
import { EDIT_CALLBACK, EditMetadataSchema, ViewStateSchema } from '../../../core/render/modal.js';
import type { ListenerDeps } from '../deps.js';

/** The parts of a view_submission payload we rely on. */
const Submission = z.object({
  user: z.object({ id: z.string().min(1) }),
  view: z.object({
    private_metadata: z.string().transform((text, ctx) => {
      try {
        return EditMetadataSchema.parse(JSON.parse(text));
      } catch {
        ctx.addIssue({ code: 'custom', message: 'private_metadata is not ours' });
        return z.NEVER;
      }
    }),
    state: z.object({ values: ViewStateSchema }),
  }),
});

export function registerEditSubmission(app: App, deps: ListenerDeps): void {
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
