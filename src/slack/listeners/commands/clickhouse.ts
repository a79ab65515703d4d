import type { App } from '@slack/bolt';
import { ANSWERS_GIVEN_AGAIN, runCommand } from '../../../commands/run.js';
import { parseCommand } from '../../../core/command/parse.js';
import { replyTo, responseBody } from '../../respond.js';
import type { ListenerDeps } from '../deps.js';

/** The slash command: ack at once (Slack's 3 s), then work and answer through response_url. */
export function registerSlashCommand(app: App, deps: ListenerDeps): void {
  app.command(deps.services.slashCommand, async ({ command, ack }) => {
    await ack();
    const parsed = parseCommand(command.text);
    deps.onCommand?.(parsed);
    // Bound to now, before the command reads anything its answer shows (ready-answers.ts); asked
    // only for the kinds that offer, so other commands neither pay for it nor count as repeats.
    const offer = ANSWERS_GIVEN_AGAIN.has(parsed.kind)
      ? deps.readyAnswerOffer?.(
          { teamId: command.team_id, channelId: command.channel_id, command: command.command, text: command.text },
          parsed,
        )
      : undefined;
    await runCommand(
      parsed,
      {
        channelId: command.channel_id,
        userId: command.user_id,
        triggerId: command.trigger_id,
        reply: replyTo(command.response_url),
        ...(offer
          ? {
              offerAgain: (message, until, everyChannel = false) =>
                void (deps.accepting() && offer(responseBody(message), until, everyChannel)),
            }
          : {}),
      },
      deps.services,
    );
  });
}
