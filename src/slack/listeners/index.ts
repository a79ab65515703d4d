/**
 * Every listener of the Slack app, registered in one place. Work that applies to every listener
 * is middleware (the drain check); each listener is a named function testable without an App.
 */
import type { App } from '@slack/bolt';
import { decisionButtons, type ActionArgs } from './actions/decision.js';
import { temporaryButtons } from './actions/temporary.js';
import { revealButtons } from './actions/reveal.js';
import { scheduleButtons } from './actions/schedules.js';
import { registerSlashCommand } from './commands/clickhouse.js';
import type { ListenerDeps } from './deps.js';
import { registerHomeOpened } from './events/home-opened.js';
import { refuseWhileDraining } from './draining.js';
import { registerEditSubmission } from './views/edit-service.js';
import { registerFollowOnSubmission } from './views/follow-on-justification.js';
import { registerRejectSubmission } from './views/reject-reason.js';
import { registerPasswordHashSubmission } from './views/password-hashes.js';
import { registerConfirmSubmission } from './views/confirm-name.js';

export function registerListeners(app: App, deps: ListenerDeps): void {
  app.use(refuseWhileDraining(deps));
  registerSlashCommand(app, deps);
  registerButtons(app, {
    ...decisionButtons(deps),
    ...temporaryButtons(deps),
    ...revealButtons(deps),
    ...scheduleButtons(deps),
  });
  registerEditSubmission(app, deps);
  registerRejectSubmission(app, deps);
  registerPasswordHashSubmission(app, deps);
  registerConfirmSubmission(app, deps);
  registerFollowOnSubmission(app, deps);
  registerHomeOpened(app, deps);
}

/**
 * Every button is one Bolt listener that picks the button's own by its action id: Bolt runs each
 * registered listener's middleware chain (argument copies, promises) for every request, so six
 * listeners, one per button, cost every command and click six chains where one does.
 */
function registerButtons(app: App, buttons: Record<string, (args: ActionArgs) => Promise<void>>): void {
  const ids = Object.keys(buttons).map((id) => id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  app.action(new RegExp(`^(?:${ids.join('|')})$`), async (args) => {
    const listener = 'action_id' in args.action ? buttons[args.action.action_id] : undefined;
    await listener?.(args);
  });
}
