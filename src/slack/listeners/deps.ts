/** What every listener reaches; its own module so that listeners and index.ts do not import each other. */
import type { BotServices } from '../../commands/context.js';
import type { Command } from '../../core/command/parse.js';
import type { Messenger } from '../../ports/index.js';
import type { MetadataSeal } from '../sealed-metadata.js';
import type { OfferAgain, ReadyAnswerKey } from '../ack-thread/ready-answers.js';

/** The bot's Home tab: drawn when someone opens it. */
export interface HomeTab {
  opened(userId: string): Promise<void>;
}

/** What listeners reach: the services, plus a switch that refuses new work while draining. */
export interface ListenerDeps {
  services: BotServices;
  messenger: Messenger;
  accepting: () => boolean;
  /** Opens a form's private_metadata: only what the bot sealed is taken (the client sends it back). */
  formSeal: Pick<MetadataSeal, 'open'>;
  /** Without it, opening the Home tab draws nothing. */
  homes?: HomeTab;
  /** Told of every slash command, parsed (metrics). */
  onCommand?: (command: Command) => void;
  /**
   * A way for one command to offer its answer to the acknowledging thread (ready-answers.ts),
   * bound to now; undefined where the thread takes none (Socket Mode).
   */
  readyAnswerOffer?: (key: ReadyAnswerKey, command: Command) => OfferAgain | undefined;
}
