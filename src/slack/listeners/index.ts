/**
 * Every listener of the Slack app, registered in one place. Work that applies to every listener
 * is middleware (the drain check); each listener is a named function testable without an App.
 */
import type { App } from '@slack/bolt';
import { registerDecisionButtons } from './actions/decision.js';
import { registerTemporaryButtons } from './actions/temporary.js';
import { registerSlashCommand } from './commands/clickhouse.js';
import type { ListenerDeps } from './deps.js';
import { registerHomeOpened } from './events/home-opened.js';
import { refuseWhileDraining } from './draining.js';
import { registerEditSubmission } from './views/edit-service.js';
import { registerRejectSubmission } from './views/reject-reason.js';

export function registerListeners(app: App, deps: ListenerDeps): void {
  app.use(refuseWhileDraining(deps));
  registerSlashCommand(app, deps);
  registerDecisionButtons(app, deps);
  registerTemporaryButtons(app, deps);
  registerEditSubmission(app, deps);
  registerRejectSubmission(app, deps);
  registerHomeOpened(app, deps);
}
