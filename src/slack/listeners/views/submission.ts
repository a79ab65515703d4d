import { z } from 'zod';
import { ViewStateSchema } from '../../../core/render/modal.js';
import type { MetadataSeal } from '../../sealed-metadata.js';

/**
 * The parts of a form's view_submission we rely on: who, the form's own metadata, the values. The
 * metadata is taken only as the bot sealed it: the submitter's client sends it back, and a channel
 * or request id in it must not be theirs to choose.
 */
export function formSubmission<Metadata extends z.ZodType>(metadata: Metadata, seal: Pick<MetadataSeal, 'open'>) {
  return z.object({
    user: z.object({ id: z.string().min(1) }),
    view: z.object({
      private_metadata: z.string().transform((text, ctx): z.output<Metadata> => {
        try {
          const opened = seal.open(text);
          if (opened === undefined) throw new Error('not sealed by this bot');
          return metadata.parse(JSON.parse(opened));
        } catch {
          ctx.addIssue({ code: 'custom', message: 'private_metadata is not ours' });
          return z.NEVER;
        }
      }),
      state: z.object({ values: ViewStateSchema }),
    }),
  });
}
