import type { AllMiddlewareArgs, SlackActionMiddlewareArgs } from '@slack/bolt';
import { z } from 'zod';
import type { Decision } from '../../../approval/change-requests.js';
import type { ListenerDeps } from '../../app.js';
import { isStoreUnavailable } from '../../../store/errors.js';
import { section } from '../../../core/render/mrkdwn.js';
import { replyTo } from '../../respond.js';
import { DRAINING_TEXT } from '../draining.js';

/** The parts of a block_actions payload we rely on. */
const ButtonClick = z.object({
  user: z.object({ id: z.string().min(1) }),
  actions: z.array(z.object({ value: z.string().min(1).max(64) })).min(1),
});

/** Where the person who clicked can be answered, read apart so that a broken click is still answered. */
const AnswerTo = z.object({
  // Absent from some payloads (Slack promises it for message buttons only): then an ephemeral message.
  response_url: z.string().url().optional(),
  user: z.object({ id: z.string().min(1) }),
  channel: z.object({ id: z.string().min(1) }).optional(),
  container: z.object({ channel_id: z.string().min(1).optional() }).optional(),
});

type ActionArgs = SlackActionMiddlewareArgs & AllMiddlewareArgs;

/** Approve, Reject and Cancel differ only in the decision; each is acked before any work. */
export function decisionListener(decision: Decision, deps: ListenerDeps) {
  return async ({ ack, body }: ActionArgs): Promise<void> => {
    await ack();
    const click = ButtonClick.safeParse(body);
    const whisper = whisperer(AnswerTo.safeParse(body).data, deps);
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

/**
 * How the person who clicked is answered: through the click's response_url, or, when the payload
 * has none, as an ephemeral message in the channel; never an exception nobody sees.
 */
function whisperer(to: z.infer<typeof AnswerTo> | undefined, deps: ListenerDeps): (text: string) => Promise<void> {
  const channelId = to?.channel?.id ?? to?.container?.channel_id;
  const userId = to?.user.id;
  const send = to?.response_url
    ? replyTo(to.response_url, { replaceOriginal: false })
    : channelId && userId
      ? (message: { text: string }) => deps.messenger.ephemeral(channelId, userId, { text: message.text, blocks: [section(message.text)] })
      : undefined;
  return async (text) => {
    if (!send) return void deps.services.logger.warn(`a click carried no way to answer its author: ${text}`);
    await send({ text }).catch((error: unknown) => deps.services.logger.warn(`could not answer a click by ${userId ?? 'someone'}: ${String(error)}`));
  };
}
