/**
 * Undo (on applied changes), Extend and Revert now (on a temporary change's reminder), and Ask
 * again (on a request refused as stale): buttons that file a change or move a grant.
 */
import { z } from 'zod';
import { ACTION_ASK_AGAIN } from '../../../core/render/change.js';
import { followOnFormView } from '../../../core/render/follow-on-form.js';
import { messageOf } from '../../../core/render/errors.js';
import { ACTION_EXTEND, ACTION_REVERT_NOW, ACTION_UNDO } from '../../../core/render/temporary.js';
import type { ClickOrigin, DecisionReply, FollowOnForm } from '../../../ports/index.js';
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
  [ACTION_ASK_AGAIN]: (s, id, user, origin) => s.changeRequests.askAgain(id, user, origin),
};

/** What opening the form needs from a click: its trigger (valid 3 s) and, in a channel, the channel. */
const FormTrigger = z.object({
  trigger_id: z.string().min(1),
  channel: z.object({ id: z.string().min(1) }).optional(),
  container: z.object({ channel_id: z.string().min(1).optional() }).optional(),
});

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
      const reply: DecisionReply = await handle(deps.services, action.value, click.data.user.id, origin).catch(
        (error: unknown) => {
          deps.services.logger.error(
            `${actionId} of ${action.value} failed:`,
            error instanceof Error ? error.message : String(error),
          );
          const cause = isStoreUnavailable(error) ? 'its store (Redis) did not answer' : 'it hit an internal error';
          return { text: `:x: The bot could not handle your click: ${cause}. Try again in a minute.` };
        },
      );
      if (reply?.form && (await openedForm(body, reply.form, deps))) return;
      if (reply) await tell(reply.form ? `${reply.text} ${FORM_UNOPENED_TEXT}` : reply.text);
    };
  }
  return buttons;
}

const FORM_UNOPENED_TEXT = 'The form with those fields could not be opened: click the button again.';

/** A rule asks a reason or ticket of the Extend or Undo: the click opens the small form that asks for them. */
async function openedForm(body: unknown, form: FollowOnForm, deps: ListenerDeps): Promise<boolean> {
  const trigger = FormTrigger.safeParse(body).data;
  if (!trigger) return false;
  const channelId = trigger.channel?.id ?? trigger.container?.channel_id;
  try {
    await deps.services.modals.open(
      trigger.trigger_id,
      followOnFormView({ ...form, asks: [...form.asks], ...(channelId ? { channelId } : {}) }),
    );
    return true;
  } catch (error) {
    deps.services.logger.warn(`could not open the form of ${form.action} of ${form.originalId}: ${messageOf(error)}`);
    return false;
  }
}
