/** Process entry: read the environment, start the bot, stop it cleanly on SIGTERM/SIGINT. */
import dotenv from 'dotenv';
import { startBot } from './bot.js';
import { ConfigError, loadConfig } from './config.js';
import { messageOf } from './core/render/errors.js';
import { createLogger } from './log.js';

const EXIT_DEADLINE_MS = 10_000;

async function main(): Promise<void> {
  dotenv.config({ quiet: true });
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const logger = createLogger({ level: config.logLevel, format: config.logFormat });
  let bot;
  try {
    bot = await startBot(config, { logger });
  } catch (error) {
    // Through the logger, which by now redacts every configured secret an error could quote.
    logger.error(`The bot could not start: ${messageOf(error)}`);
    process.exit(1);
  }
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    // Stopping first: its first step refuses new work (the acknowledging thread's ready answers
    // included), so whoever reads the line below finds the bot already draining.
    const stopped = bot.stop();
    logger.info(`${signal} received: finishing approvals in flight, refusing new work`);
    setTimeout(() => {
      logger.error('shutdown took too long; exiting anyway');
      process.exit(1);
    }, EXIT_DEADLINE_MS).unref();
    stopped.then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error(`shutdown failed: ${messageOf(error)}`);
        process.exit(1);
      },
    );
  };
  // SIGHUP re-reads POLICY_FILE and ORGANIZATIONS_FILE; a bad file keeps what is in force (the reload logs why).
  process.on('SIGHUP', () => {
    logger.info('SIGHUP received: reloading the approval policy and the organizations');
    void bot.reloadPolicy();
    void bot.reloadOrganizations();
  });
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(`The bot could not start: ${messageOf(error)}\n`);
  process.exit(1);
});
