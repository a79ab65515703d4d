/** Slash commands and button clicks shaped and signed as Slack sends them, for the benchmarks. */
import { randomUUID } from 'node:crypto';
import { slackSignatureHeaders } from '../src/playground/signing.js';

export const BENCH_SECRET = 'bench-signing-secret';

export function signed(body: string): Record<string, string> {
  return { 'content-type': 'application/x-www-form-urlencoded', ...slackSignatureHeaders(body, BENCH_SECRET) };
}

/** `responseUrl` defaults to a fresh one under `responseUrlBase`. */
export function commandBody(
  responseUrlBase: string,
  text: string,
  user = 'UBENCH1',
  channel = 'CBENCH',
  responseUrl = `${responseUrlBase}/respond/${randomUUID()}`,
): string {
  return new URLSearchParams({
    team_id: 'T1',
    channel_id: channel,
    user_id: user,
    command: '/clickhouse',
    text,
    response_url: responseUrl,
    trigger_id: randomUUID(),
    api_app_id: 'A1',
  }).toString();
}

export function clickBody(
  responseUrlBase: string,
  requestId: string,
  responseUrl = `${responseUrlBase}/respond/${randomUUID()}`,
  { user = 'UBENCH2', channel = 'CBENCH' }: { user?: string; channel?: string } = {},
): string {
  const payload = {
    type: 'block_actions',
    user: { id: user },
    team: { id: 'T1' },
    channel: { id: channel },
    api_app_id: 'A1',
    container: { type: 'message', message_ts: '1.1', channel_id: channel },
    trigger_id: randomUUID(),
    response_url: responseUrl,
    actions: [{ action_id: 'change_approve', block_id: 'change_actions', value: requestId, type: 'button' }],
  };
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}
