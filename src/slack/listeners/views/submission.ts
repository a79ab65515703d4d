import { z } from 'zod';
import { ViewStateSchema } from '../../../core/render/modal.js';

/** The parts of a form's view_submission we rely on: who, the form's own metadata, the values. */
export function formSubmission<Metadata extends z.ZodType>(metadata: Metadata) {
  return z.object({
    user: z.object({ id: z.string().min(1) }),
    view: z.object({
      private_metadata: z.string().transform((text, ctx): z.output<Metadata> => {
        try {
          return metadata.parse(JSON.parse(text));
        } catch {
          ctx.addIssue({ code: 'custom', message: 'private_metadata is not ours' });
          return z.NEVER;
        }
      }),
      state: z.object({ values: ViewStateSchema }),
    }),
  });
}
