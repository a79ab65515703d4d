/** What every listener reaches; its own module so that listeners and index.ts do not import each other. */
import type { BotServices } from '../../commands/context.js';
import type { Command } from '../../core/command/parse.js';
import type { Messenger } from '../../ports/index.js';

/** What listeners reach: the services, plus a switch that refuses new work while draining. */
export interface ListenerDeps {
  services: BotServices;
  messenger: Messenger;
  accepting: () => boolean;
  /** Told of every slash command, parsed (metrics). */
  onCommand?: (command: Command) => void;
}
