/**
 * The Remove button of `schedule list`: removes that schedule of the channel the list was shown
 * in, as `schedule remove ID` would there, and tells whoever clicked.
 */
import { removeChannelSchedule } from '../../../commands/schedules.js';
import { messageOf } from '../../../core/render/errors.js';
import { ACTION_SCHEDULE_REMOVE } from '../../../core/render/schedule.js';
import type { ListenerDeps } from '../deps.js';
import { ButtonClick, originOf, whisperToClicker, type ActionArgs } from './decision.js';

export function scheduleButtons(deps: ListenerDeps): Record<string, (args: ActionArgs) => Promise<void>> {
  return {
    [ACTION_SCHEDULE_REMOVE]: async ({ ack, body }: ActionArgs) => {
      await ack();
      const tell = whisperToClicker(body, deps);
      const click = ButtonClick.safeParse(body).data;
      const { channelId } = originOf(body);
      const id = click?.actions[0]?.value;
      if (!click || !id || !channelId)
        return tell('This button did not say which schedule of which channel, so nothing was removed.');
      const text = await removeChannelSchedule(id, channelId, deps.services).catch((error: unknown) => {
        deps.services.logger.warn(`could not remove schedule ${id}: ${messageOf(error)}`);
        return `:x: The schedule ${id} could not be removed: ${messageOf(error)}. Try \`schedule remove ${id}\`.`;
      });
      await tell(text);
    },
  };
}
