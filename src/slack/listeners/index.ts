/**
 * Every listener of the Slack app, registered in one place. Work that applies to every listener
 * is middleware (the drain check); each listener is a named function testable without an App.
 */
import type { App } from '@slack/bolt';
import type { BotServices } from '../../commands/context.js';
import type { Command } from '../../core/command/parse.js';
import type { Messenger } from '../../ports/index.js';
import { registerDecisionButtons } from './actions/decision.js';
import { registerTemporaryButtons } from './actions/temporary.js';
import { registerSlashCommand } from './commands/clickhouse.js';
import { refuseWhileDraining } from './draining.js';
import { registerEditSubmission } from './views/edit-service.js';

/** What listeners reach: the services, plus a switch that refuses new work while draining. */
export interface ListenerDeps {
  services: BotServices;
  messenger: Messenger;
  accepting: () => boolean;
  /** Told of every slash command, parsed (metrics). */
  onCommand?: (command: Command) => void;
}

export function registerListeners(app: App, deps: ListenerDeps): void {
  app.use(refuseWhileDraining(deps));
  registerSlashCommand(app, deps);
  registerDecisionButtons(app, deps);
  registerTemporaryButtons(app, deps);
  registerEditSubmission(app, deps);
}
