import { createHmac } from 'node:crypto';

/** The headers Slack puts on every request: a timestamp and an HMAC-SHA256 of "v0:ts:body". */
export function slackSignatureHeaders(
  body: string,
  secret: string,
  timestamp = Math.floor(Date.now() / 1000).toString(),
): Record<string, string> {
  const signature = createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex');
  return { 'x-slack-request-timestamp': timestamp, 'x-slack-signature': `v0=${signature}` };
}
