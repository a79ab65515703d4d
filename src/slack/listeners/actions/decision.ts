import type { AllMiddlewareArgs, SlackActionMiddlewareArgs } from '@slack/bolt';
import { z } from 'zod';
import type { Decision } from '../../../ports/approval-policy.js';
import { isStoreUnavailable } from '../../../ports/store-errors.js';
import type { ListenerDeps } from '../../app.js';
import { replyTo } from '../../respond.js';
import { DRAINING_TEXT } from '../draining.js';

/** The parts of a block_actions payload we rely on. */
const ButtonClick = z.object({
  response_url: z.string().url(),
  user: z.object({ id: z.string().min(1) }),
  actions: z.array(z.object({ value: z.string().min(1).max(64) })).min(1),
});

type ActionArgs = SlackActionMiddlewareArgs & AllMiddlewareArgs;

/** Approve, Reject and Cancel differ only in the decision; each is acked before any work. */
export function decisionListener(decision: Decision, deps: ListenerDeps) {
  return async ({ ack, body, respond }: ActionArgs): Promise<void> => {
    await ack();
    const click = ButtonClick.safeParse(body);
    const reply = click.success ? replyTo(click.data.response_url, { replaceOriginal: false }) : undefined;
    const whisper = (text: string) => (reply ? reply({ text }) : respond({ response_type: 'ephemeral', replace_original: false, text }));
    if (!deps.accepting()) return void (await whisper(DRAINING_TEXT));
    const [action] = click.success ? click.data.actions : [];
    if (!click.success || !action) return void (await whisper('This button did not carry a change request id, so nothing was changed.'));
    const outcome = await deps.changes.decide(decision, action.value, click.data.user.id).catch((error: unknown) => {
      deps.services.logger.error(`${decision} of ${action.value} failed:`, error instanceof Error ? error.message : String(error));
      // The click may have been claimed (and the change sent) before the failure: say so honestly.
      const cause = isStoreUnavailable(error) ? "its store (Redis) did not answer" : 'it hit an internal error';
      return {
        text: `:x: The bot could not finish handling your click: ${cause}. If the change had already been sent to ClickHouse Cloud, the bot checks the service and updates the request message once it can; otherwise click again in a minute.`,
      };
    });
    if (outcome) await whisper(outcome.text);
  };
}
