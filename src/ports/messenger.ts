import type { Block, View } from '../core/render/mrkdwn.js';

export interface Message {
  /** Notification and screen-reader text; Slack shows it where blocks cannot be shown. */
  text: string;
  blocks: Block[];
  threadTs?: string;
  /** One of many (a summary's messages): it yields to other posts in the same channel. */
  bulk?: boolean;
}

/** A file to share in a channel (a chart). */
export interface FileUpload {
  filename: string;
  bytes: Uint8Array;
  title: string;
  /** What the image shows, for screen readers and for anyone it does not load for. */
  altText: string;
  /** In this thread rather than the channel itself. */
  threadTs?: string;
}

/** Where a message was posted: enough to update it later (a DM's conversation, not the person). */
export interface PostedMessage {
  channelId: string;
  ts: string;
}

/** What the middle layer needs from the chat platform; slack/messenger.ts implements it. */
export interface Messenger {
  /** Posts publicly in a channel and returns the message's ts. */
  post(channelId: string, message: Message): Promise<string>;
  update(channelId: string, ts: string, message: Message): Promise<void>;
  ephemeral(channelId: string, userId: string, message: Message): Promise<void>;
  /**
   * A direct message to one person (Slack opens the conversation); callers must not depend on it
   * arriving. Answers where it was posted, so it can be updated like any message.
   */
  dm(userId: string, message: Message): Promise<PostedMessage>;
  /** Members of a Slack user group (S...). */
  groupMembers(groupId: string): Promise<string[]>;
  /** Members of a channel, every page of them (conversations.members: channels:read, groups:read if private). */
  channelMembers(channelId: string): Promise<string[]>;
  /** Replaces what one person sees in the bot's Home tab (a view of type `home`). */
  publishHome(userId: string, view: View): Promise<void>;
  /** The person's own time zone as set in Slack (users.info `user.tz`), e.g. Europe/Berlin; undefined when Slack does not say. */
  userTimeZone(userId: string): Promise<string | undefined>;
  /** Shares a file in a channel or thread (Slack's files.uploadV2: needs the files:write scope). */
  uploadFile(channelId: string, file: FileUpload): Promise<void>;
  /** A link that opens one message (Slack's chat.getPermalink), e.g. to point a DM at the request. */
  permalink(channelId: string, ts: string): Promise<string>;
}

/**
 * Why a call to the chat platform failed, in the middle layer's words; the adapter maps its own
 * codes to these (slack/messenger.ts). `not-in-channel`: the bot cannot post in that channel.
 */
export type MessengerFailure = 'not-in-channel' | 'rate-limited' | 'other';

/** A chat platform call that failed, with the platform's own code for people and logs. */
export class MessengerError extends Error {
  override readonly name = 'MessengerError';
  constructor(
    readonly method: string,
    readonly reason: MessengerFailure,
    /** The platform's code as it said it (e.g. Slack's not_in_channel); never the request. */
    readonly code: string,
    /** Rate limited (429): how long the platform asked to wait before calling again. */
    readonly retryAfterMs?: number,
  ) {
    super(`Slack ${method} failed: ${code}`);
  }
}
