import type { AllMiddlewareArgs, App, RespondFn, SlackActionMiddlewareArgs } from '@slack/bolt';
import { z } from 'zod';
import { ACTION_APPROVE, ACTION_CANCEL, ACTION_REJECT } from '../../../core/render/change.js';
import { clickFailureText, messageOf } from '../../../core/render/errors.js';
import type { Decision } from '../../../ports/approval-policy.js';
import { isStoreUnavailable } from '../../../ports/store-errors.js';
import { replyTo } from '../../respond.js';
import type { ListenerDeps } from '../index.js';

/** The button of each decision; the compiler checks that every decision has one. */
const DECISION_ACTIONS: Record<Decision, string> = { approve: ACTION_APPROVE, reject: ACTION_REJECT, cancel: ACTION_CANCEL };

export function registerDecisionButtons(app: App, deps: ListenerDeps): void {
  for (const [decision, actionId] of Object.entries(DECISION_ACTIONS) as Array<[Decision, string]>) {
    app.action(actionId, decisionListener(decision, deps));
  }
}

/** The parts of a block_actions payload we rely on. */
const ButtonClick = z.object({
  response_url: z.string().url(),
  user: z.object({ id: z.string().min(1) }),
  actions: z.array(z.object({ value: z.string().min(1).max(64) })).min(1),
});

type ActionArgs = SlackActionMiddlewareArgs & AllMiddlewareArgs;

/** Answers only whoever clicked: through the click's response_url, or Bolt's respond without one. */
export function whisperToClicker(body: unknown, respond: RespondFn): (text: string) => Promise<void> {
  return whisper(ButtonClick.safeParse(body), respond);
}

function whisper(click: ReturnType<typeof ButtonClick.safeParse>, respond: RespondFn): (text: string) => Promise<void> {
  const reply = click.success ? replyTo(click.data.response_url, { replaceOriginal: false }) : undefined;
  return async (text) => {
    if (reply) await reply({ text });
    else await respond({ response_type: 'ephemeral', replace_original: false, text });
  };
}

/** Approve, Reject and Cancel differ only in the decision; each is acked before any work. */
export function decisionListener(decision: Decision, deps: ListenerDeps) {
  return async ({ ack, body, respond }: ActionArgs): Promise<void> => {
    await ack();
    const click = ButtonClick.safeParse(body);
    const tell = whisper(click, respond);
    const [action] = click.success ? click.data.actions : [];
    if (!click.success || !action) return void (await tell('This button did not carry a change request id, so nothing was changed.'));
    const outcome = await deps.services.changeRequests.decide(decision, action.value, click.data.user.id).catch((error: unknown) => {
      deps.services.logger.error(`${decision} of ${action.value} failed:`, messageOf(error));
      // The click may have been claimed (and the change sent) before the failure: say so honestly.
      return { text: clickFailureText(isStoreUnavailable(error)) };
    });
    if (outcome) await tell(outcome.text);
  };
}
