/**
 * While the bot drains for a restart it takes no new work: every command, click and submission
 * gets this sentence, in the form each kind of request can show, before any listener runs.
 */
import type { AllMiddlewareArgs, AnyMiddlewareArgs } from '@slack/bolt';
import { whisperToClicker } from './actions/decision.js';
import type { ListenerDeps } from './deps.js';

export const DRAINING_TEXT =
  ':arrows_counterclockwise: The bot is restarting and takes no new work for a moment. Try again in a few seconds.';

/** The edit modal shows it inline, next to its first input. */
const DRAINING_SUBMISSION = {
  response_action: 'errors',
  errors: { name: 'The bot is restarting; submit again in a few seconds.' },
} as const;

export function refuseWhileDraining(deps: ListenerDeps) {
  return async (args: AnyMiddlewareArgs & AllMiddlewareArgs): Promise<void> => {
    if (deps.accepting()) return args.next();
    if ('command' in args) return args.ack({ response_type: 'ephemeral', text: DRAINING_TEXT });
    if ('view' in args) return args.ack(DRAINING_SUBMISSION);
    if ('action' in args && args.body.type === 'block_actions') {
      await args.ack();
      return whisperToClicker(args.body, deps)(DRAINING_TEXT);
    }
    return args.next();
  };
}
