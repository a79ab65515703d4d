import type { App } from '@slack/bolt';
import { z } from 'zod';
import { clickFailureText, messageOf } from '../../../core/render/errors.js';
import { ViewStateSchema, type ViewState } from '../../../core/render/modal.js';
import { section } from '../../../core/render/mrkdwn.js';
import { isStoreUnavailable } from '../../../ports/store-errors.js';
import type { MetadataSeal } from '../../sealed-metadata.js';
import type { ListenerDeps } from '../deps.js';

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

/** What a small form's values come to: what to act with, or the problems to show by block. */
export type FormReading<Given> = { ok: true; given: Given } | { ok: false; errors: Record<string, string> };

/**
 * A small form a button opened (Reject's reason, Approve's typed name, an Extend's reason): a
 * form that is not ours or out of date says so under `goneBlock`; values with problems are shown
 * in the form; otherwise it closes at once (Slack's 3 s) and the action runs like the click that
 * opened it, answered privately (a failure in a sentence, never a silent form).
 */
export function registerFormAction<Metadata extends z.ZodType, Given>(
  app: App,
  deps: ListenerDeps,
  form: {
    callbackId: string;
    metadata: Metadata;
    goneBlock: string;
    goneText: string;
    read(values: ViewState, metadata: z.output<Metadata>): FormReading<Given>;
    act(userId: string, metadata: z.output<Metadata>, given: Given): Promise<{ text: string } | undefined>;
    /** "reject of CR-…": what failed, for the log. */
    describe(metadata: z.output<Metadata>): string;
    channelOf(metadata: z.output<Metadata>): string | undefined;
  },
): void {
  const Submission = formSubmission(form.metadata, deps.formSeal);
  app.view(form.callbackId, async ({ ack, body }) => {
    const parsed = Submission.safeParse(body);
    if (!parsed.success)
      return void (await ack({ response_action: 'errors', errors: { [form.goneBlock]: form.goneText } }));
    const { user, view } = parsed.data;
    const metadata = view.private_metadata;
    const reading = form.read(view.state.values, metadata);
    if (!reading.ok) return void (await ack({ response_action: 'errors', errors: reading.errors }));
    await ack();
    const outcome = await form.act(user.id, metadata, reading.given).catch((error: unknown) => {
      deps.services.logger.error(`${form.describe(metadata)} failed:`, messageOf(error));
      return { text: clickFailureText(isStoreUnavailable(error)) };
    });
    if (outcome) await tell(deps, user.id, form.channelOf(metadata), outcome.text);
  });
}

/** Privately in the form's channel; where that fails (or is unknown), in a DM. */
export async function tell(
  deps: ListenerDeps,
  userId: string,
  channelId: string | undefined,
  text: string,
): Promise<void> {
  const message = { text, blocks: [section(text)] };
  try {
    if (!channelId) throw new Error('no channel');
    await deps.messenger.ephemeral(channelId, userId, message);
  } catch {
    await deps.messenger.dm(userId, message).catch((error: unknown) => {
      deps.services.logger.warn(`could not answer ${userId}'s form: ${messageOf(error)}`);
    });
  }
}
