/** What people are told when a channel's organization or guardrails stand in the way. */
import { code, esc, serviceRef } from './mrkdwn.js';

/** A channel bound to no organization: which ones are, and how to bind this one. */
/**
 * The answer in a channel bound to no organization: that, and who can bind it. Never which other
 * channels are bound (some are private) nor to which organization.
 */
export function unboundChannelText(channelId: string): string {
  return (
    ':no_entry: This channel is not bound to a ClickHouse Cloud organization, so I do nothing here. ' +
    `To use me here, whoever runs the bot adds ${code(channelId)} under an organization's ${code('channels:')} in ORGANIZATIONS_FILE and sends the bot SIGHUP.`
  );
}

/** A command word or change kind the channel's `allow` list leaves out. */
export function notAllowedText(word: string, allow: readonly string[]): string {
  return (
    `:no_entry: ${code(word)} is not allowed in this channel. Here you may use: ${allow.map(code).join(', ')}. ` +
    'Ask in a channel that allows it, or ask an operator to add it to this channel in ORGANIZATIONS_FILE.'
  );
}

/** Approval refused: the channel's rules changed (reload) since the request was made. */
export function approvalNoLongerAllowedText(why: string): string {
  return `:no_entry: This request can no longer be approved: ${why} Ask for it again where it is allowed.`;
}

const FOLLOW_ON_NAMES = { extend: 'The extension was', undo: 'The undo was', 'ask-again': 'It was' } as const;

/** An Extend, Undo or Ask again its channel may no longer file (`why`: one of the reasons below). */
export function followOnNotAllowedText(action: keyof typeof FOLLOW_ON_NAMES, why: string): string {
  return `:no_entry: ${FOLLOW_ON_NAMES[action]} not filed: ${why} Ask for it where it is allowed.`;
}

export const channelUnboundReason = (organization: string) =>
  `this channel is no longer bound to the organization ${esc(organization)} in ORGANIZATIONS_FILE.`;

export const kindNotAllowedReason = (kind: string) => `${code(kind)} changes are no longer allowed in this channel.`;

export const serviceOutOfScopeReason = (name: string, id: string) =>
  `${serviceRef(name, id)} is no longer among the services this channel may change.`;

/** `cost` in a channel of another organization than the first: spend is read for the first one only. */
export function costsElsewhereText(organization: string, first: string): string {
  return `:information_source: Spend reports cover one organization, ${code(first)} (the first the bot is set up with); this channel belongs to ${code(organization)}, so there is no spend to show here. Whoever runs the bot can tell you more.`;
}
