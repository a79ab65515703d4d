/** People and user groups as mentions; anything that is not a Slack id is shown as text, never parsed. */
import { esc } from './mrkdwn.js';

/** A user id from Slack, rendered as a mention; anything else is shown as text, never parsed. */
export function mention(userId: string | undefined): string {
  if (!userId) return 'someone';
  return /^[UWB][A-Z0-9]{2,}$/.test(userId) ? `<@${userId}>` : esc(userId);
}

/** A user group as Slack renders it (S…), a user as a mention. */
export function approverLabel(id: string): string {
  return /^S[A-Z0-9]{2,}$/.test(id) ? `<!subteam^${id}>` : mention(id);
}

export const people = (ids: readonly string[]) => ids.map(approverLabel).join(', ');

/** A channel id as Slack links it; anything else (never expected) shown as escaped text. */
export function channelRef(channelId: string): string {
  return /^[CG][A-Z0-9]{2,}$/.test(channelId) ? `<#${channelId}>` : esc(channelId);
}
