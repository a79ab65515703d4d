import type { Block } from '../core/render/mrkdwn.js';

export interface Message {
  /** Notification and screen-reader text; Slack shows it where blocks cannot be shown. */
  text: string;
  blocks: Block[];
  threadTs?: string;
}

/** What the approval flow needs from Slack's Web API; the Slack adapter implements it. */
export interface Messenger {
  /** Posts publicly in a channel and returns the message's ts. */
  post(channelId: string, message: Message): Promise<string>;
  update(channelId: string, ts: string, message: Message): Promise<void>;
  ephemeral(channelId: string, userId: string, message: Message): Promise<void>;
  /** Members of a Slack user group (S...). */
  groupMembers(groupId: string): Promise<string[]>;
}

/** A Slack Web API failure, with Slack's error code (e.g. not_in_channel). */
export class SlackCallError extends Error {
  override readonly name = 'SlackCallError';
  constructor(
    readonly method: string,
    readonly code: string,
  ) {
    super(`Slack ${method} failed: ${code}`);
  }
}
