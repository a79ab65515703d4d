/**
 * Reveal password: opens a modal at once (a trigger dies after 3 s), then asks the vault; the
 * owner's first click fills the modal with the secret, any other click with a sentence. The
 * secret is fetched only once the modal is open, so a modal that cannot open consumes nothing.
 */
import { z } from 'zod';
import { messageOf } from '../../../core/render/errors.js';
import { ACTION_REVEAL, revealedView, revealLoadingView, revealMessageView } from '../../../core/render/secrets.js';
import { isStoreUnavailable } from '../../../ports/store-errors.js';
import type { ListenerDeps } from '../deps.js';
import { ButtonClick, whisperToClicker, type ActionArgs } from './decision.js';

const Trigger = z.object({ trigger_id: z.string().min(1) });

export function revealButtons(deps: ListenerDeps): Record<string, (args: ActionArgs) => Promise<void>> {
  return {
    [ACTION_REVEAL]: async ({ ack, body }: ActionArgs) => {
      await ack();
      const tell = whisperToClicker(body, deps);
      const click = ButtonClick.safeParse(body).data;
      const trigger = Trigger.safeParse(body).data;
      const [action] = click?.actions ?? [];
      if (!click || !action || !trigger)
        return tell('This button did not carry what it needs, so nothing was revealed.');
      const { modals, secrets, logger } = deps.services;
      let viewId: string;
      try {
        viewId = (await modals.open(trigger.trigger_id, revealLoadingView())).viewId;
      } catch (error) {
        logger.warn(`could not open the Reveal window for ${click.user.id}: ${messageOf(error)}`);
        return tell('Slack did not open the window in time, so nothing was revealed; click Reveal password again.');
      }
      const answer = await secrets.reveal(action.value, click.user.id).catch((error: unknown) => {
        logger.warn(`could not read secret ${action.value}: ${messageOf(error)}`);
        const cause = isStoreUnavailable(error) ? 'its store (Redis) did not answer' : 'it hit an internal error';
        return { kind: 'refuse' as const, text: `:x: The bot could not fetch it: ${cause}. Try again in a minute.` };
      });
      const view = answer.kind === 'show' ? revealedView(answer.label, answer.value) : revealMessageView(answer.text);
      await modals.update(viewId, view).catch((error: unknown) => {
        // Never the view in the log: it may hold the secret.
        logger.warn(`could not fill the Reveal window for ${click.user.id}: ${messageOf(error)}`);
      });
    },
  };
}
