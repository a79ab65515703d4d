/** Undo (on applied changes), Extend and Revert now (on a temporary change's reminder). */
import { ACTION_EXTEND, ACTION_REVERT_NOW, ACTION_UNDO } from '../../../core/render/temporary.js';
import type { ClickOrigin, DecisionReply, TemporaryChangeService } from '../../../ports/index.js';
import { isStoreUnavailable } from '../../../ports/store-errors.js';
import type { ListenerDeps } from '../deps.js';
import { ButtonClick, originOf, whisperToClicker, type ActionArgs } from './decision.js';

type Handler = (
  service: TemporaryChangeService,
  requestId: string,
  userId: string,
  origin: ClickOrigin,
) => Promise<DecisionReply>;

const BUTTONS: Record<string, Handler> = {
  [ACTION_UNDO]: (service, id, user, origin) => service.undo(id, user, origin),
  [ACTION_EXTEND]: (service, id, user, origin) => service.extend(id, user, origin),
  [ACTION_REVERT_NOW]: (service, id, user, origin) => service.revertNow(id, user, origin),
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
      const reply = await handle(deps.services.temporary, action.value, click.data.user.id, origin).catch(
        (error: unknown) => {
          deps.services.logger.error(
            `${actionId} of ${action.value} failed:`,
            error instanceof Error ? error.message : String(error),
          );
          const cause = isStoreUnavailable(error) ? 'its store (Redis) did not answer' : 'it hit an internal error';
          return { text: `:x: The bot could not handle your click: ${cause}. Try again in a minute.` };
        },
      );
      if (reply) await tell(reply.text);
    };
  }
  return buttons;
}
