/**
 * Undo (on applied changes), Extend and Revert now (on a temporary change's reminder), and Ask
 * again (on a request refused as stale): buttons that file a change or move a grant.
 */
import { ACTION_ASK_AGAIN } from '../../../core/render/change.js';
import { ACTION_EXTEND, ACTION_REVERT_NOW, ACTION_UNDO } from '../../../core/render/temporary.js';
import type { ClickOrigin, DecisionReply } from '../../../ports/index.js';
import { isStoreUnavailable } from '../../../ports/store-errors.js';
import type { ListenerDeps } from '../deps.js';
import { ButtonClick, originOf, whisperToClicker, type ActionArgs } from './decision.js';

type Handler = (
  services: ListenerDeps['services'],
  requestId: string,
  userId: string,
  origin: ClickOrigin,
) => Promise<DecisionReply>;

const BUTTONS: Record<string, Handler> = {
  [ACTION_UNDO]: (s, id, user, origin) => s.temporary.undo(id, user, origin),
  [ACTION_EXTEND]: (s, id, user, origin) => s.temporary.extend(id, user, origin),
  [ACTION_REVERT_NOW]: (s, id, user, origin) => s.temporary.revertNow(id, user, origin),
  // Only its requester may ask again, wherever they click.
  [ACTION_ASK_AGAIN]: (s, id, user) => s.changeRequests.askAgain(id, user),
};

/** The listener of each button, by action id (listeners/index.ts registers them with Bolt). */
export function temporaryButtons(deps: ListenerDeps): Record<string, (args: ActionArgs) => Promise<void>> {
  const buttons: Record<string, (args: ActionArgs) => Promise<void>> = {};
  for (const [actionId, handle] of Object.entries(BUTTONS)) {
    buttons[actionId] = async ({ ack, body }: ActionArgs) => {
      await ack();
      const click = ButtonClick.safeParse(body);
      const tell = whisperToClicker(body, deps);
      const [action] = click.success ? click.data.actions : [];
      if (!click.success || !action)
        return void (await tell('This button did not carry a change request id, so nothing was changed.'));
      const origin = originOf(body);
      const reply = await handle(deps.services, action.value, click.data.user.id, origin).catch((error: unknown) => {
        deps.services.logger.error(
          `${actionId} of ${action.value} failed:`,
          error instanceof Error ? error.message : String(error),
        );
        const cause = isStoreUnavailable(error) ? 'its store (Redis) did not answer' : 'it hit an internal error';
        return { text: `:x: The bot could not handle your click: ${cause}. Try again in a minute.` };
      });
      if (reply) await tell(reply.text);
    };
  }
  return buttons;
}
