/**
 * The baseline: a Bolt app on the same receiver that acknowledges the same requests and does
 * nothing else. The bot's acknowledgement latency is compared with this one, measured in the
 * same run on the same machine.
 */
import { App, HTTPReceiver, LogLevel } from '@slack/bolt';
import type { AddressInfo } from 'node:net';

const receiver = new HTTPReceiver({ signingSecret: process.env.SLACK_SIGNING_SECRET ?? '', processBeforeResponse: false, logLevel: LogLevel.ERROR });
const app = new App({
  receiver,
  token: 'xoxb-bare',
  tokenVerificationEnabled: false,
  logLevel: LogLevel.ERROR,
  clientOptions: { slackApiUrl: process.env.SLACK_API_URL ?? 'http://127.0.0.1:9/api/' },
});
app.command(process.env.SLASH_COMMAND ?? '/clickhouse', async ({ ack }) => ack());
app.action(/.*/, async ({ ack }) => ack());

const server = await receiver.start(Number(process.env.PORT ?? 0));
process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
process.on('SIGTERM', () => void receiver.stop().then(() => process.exit(0)));
