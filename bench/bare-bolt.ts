/**
 * The baseline: plain Bolt (its own HTTPReceiver, on the main thread, where the bot has its
 * acknowledging thread) with the bot's App options (one auth.test at start), whose listeners
 * acknowledge and do nothing else. run.ts starts it exactly
 * as it starts the bot: compiled JavaScript in its own process, no loader.
 *
 * Why it calls init(): with `tokenVerificationEnabled: false` Bolt's single-workspace authorize
 * calls auth.test on EVERY request (its "cache" is overwritten on each call), so an earlier
 * baseline built that way waited for a Web API round trip before each acknowledgement.
 */
import { App, HTTPReceiver, LogLevel } from '@slack/bolt';
import type { AddressInfo } from 'node:net';

const receiver = new HTTPReceiver({
  signingSecret: process.env.SLACK_SIGNING_SECRET ?? '',
  processBeforeResponse: false,
  logLevel: LogLevel.ERROR,
});
const app = new App({
  receiver,
  token: process.env.SLACK_BOT_TOKEN ?? 'xoxb-bare',
  logLevel: LogLevel.ERROR,
  deferInitialization: true,
  convoStore: false,
  clientOptions: { slackApiUrl: process.env.SLACK_API_URL ?? 'http://127.0.0.1:9/api/' },
});
if (process.env.BARE_ANSWERS === '1') {
  // The answer baseline: acknowledge, then answer through the response_url with Bolt's respond().
  app.command(process.env.SLASH_COMMAND ?? '/clickhouse', async ({ ack, respond }) => {
    await ack();
    await respond({ response_type: 'ephemeral', text: '12 ClickHouse Cloud services' });
  });
  app.action(/.*/, async ({ ack, respond }) => {
    await ack();
    await respond({ text: 'This request is already settled.' });
  });
} else {
  app.command(process.env.SLASH_COMMAND ?? '/clickhouse', async ({ ack }) => ack());
  app.action(/.*/, async ({ ack }) => ack());
}

await app.init();
const server = await receiver.start(Number(process.env.PORT ?? 0));
process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
process.on('SIGTERM', () => void receiver.stop().then(() => process.exit(0)));
