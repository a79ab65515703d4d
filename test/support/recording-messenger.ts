/**
 * A Messenger that keeps what the middle layer sent, for fast in-process tests: posts (with the
 * ts it handed out), updates and ephemeral messages, per channel. Channels can be made to refuse
 * posts as Slack does for a channel the bot is not in, and user groups can be given members.
 */
import type { FileUpload, Message, Messenger, PostedMessage } from '../../src/ports/index.js';
import type { View } from '../../src/core/render/mrkdwn.js';
import { MessengerError } from '../../src/ports/index.js';
import { answer } from '../../src/ports/answer.js';

export interface Sent {
  kind: 'post' | 'update' | 'ephemeral' | 'dm';
  channelId: string;
  ts: string;
  /** Ephemeral messages and DMs only: who sees it (a DM's channelId is the user id too). */
  userId?: string;
  message: Message;
}

export class RecordingMessenger implements Messenger {
  readonly sent: Sent[] = [];
  /** Channels where the bot is not a member: posts there fail with reason not-in-channel. */
  readonly outside = new Set<string>();
  readonly groups = new Map<string, string[]>();
  /** Members of each channel (conversations.members); a channel not set has nobody in it. */
  readonly channelPeople = new Map<string, string[]>();
  /** People whose DMs fail, with Slack's code (user_disabled, cannot_dm_bot...). */
  readonly unreachable = new Map<string, string>();
  /** Every Home tab published, in order: who it was for and the view. */
  readonly homes: Array<{ userId: string; view: View }> = [];
  /** Every file shared (charts), in order. */
  readonly files: Array<{ channelId: string; file: FileUpload }> = [];
  private counter = 0;

  post(channelId: string, message: Message): Promise<string> {
    return answer(() => {
      if (this.outside.has(channelId)) throw new MessengerError('chat.postMessage', 'not-in-channel', 'not_in_channel');
      const ts = `1700000000.${String(++this.counter).padStart(6, '0')}`;
      this.sent.push({ kind: 'post', channelId, ts, message: structuredClone(message) });
      return ts;
    });
  }

  update(channelId: string, ts: string, message: Message): Promise<void> {
    return answer(() => {
      this.sent.push({ kind: 'update', channelId, ts, message: structuredClone(message) });
    });
  }

  ephemeral(channelId: string, userId: string, message: Message): Promise<void> {
    return answer(() => {
      if (this.outside.has(channelId))
        throw new MessengerError('chat.postEphemeral', 'not-in-channel', 'not_in_channel');
      this.sent.push({ kind: 'ephemeral', channelId, ts: '', userId, message: structuredClone(message) });
    });
  }

  dm(userId: string, message: Message): Promise<PostedMessage> {
    return answer(() => {
      const code = this.unreachable.get(userId);
      if (code) throw new MessengerError('chat.postMessage', 'other', code);
      const ts = `1700000000.${String(++this.counter).padStart(6, '0')}`;
      this.sent.push({ kind: 'dm', channelId: userId, ts, userId, message: structuredClone(message) });
      return { channelId: userId, ts };
    });
  }

  groupMembers(groupId: string): Promise<string[]> {
    return answer(() => {
      const members = this.groups.get(groupId);
      if (!members) throw new MessengerError('usergroups.users.list', 'other', 'no_such_subteam');
      return [...members];
    });
  }

  channelMembers(channelId: string): Promise<string[]> {
    return answer(() => [...(this.channelPeople.get(channelId) ?? [])]);
  }

  /** Each person's Slack time zone, as users.info would say it. */
  readonly timeZones = new Map<string, string>();

  userTimeZone(userId: string): Promise<string | undefined> {
    return answer(() => this.timeZones.get(userId));
  }

  uploadFile(channelId: string, file: FileUpload): Promise<void> {
    return answer(() => {
      if (this.outside.has(channelId)) throw new MessengerError('files.uploadV2', 'not-in-channel', 'not_in_channel');
      this.files.push({ channelId, file: { ...file, bytes: new Uint8Array(file.bytes) } });
    });
  }

  /** Channels whose chat.getPermalink fails (channel_not_found, as Slack says for one it cannot see). */
  readonly withoutLinks = new Set<string>();

  permalink(channelId: string, ts: string): Promise<string> {
    return answer(() => {
      if (this.withoutLinks.has(channelId))
        throw new MessengerError('chat.getPermalink', 'not-in-channel', 'channel_not_found');
      return `https://example.slack.com/archives/${channelId}/p${ts.replace('.', '')}`;
    });
  }

  publishHome(userId: string, view: View): Promise<void> {
    return answer(() => {
      this.homes.push({ userId, view: structuredClone(view) });
    });
  }

  /** The Home tab last published for one person. */
  home(userId: string): View | undefined {
    return this.homes.filter((h) => h.userId === userId).at(-1)?.view;
  }

  /** What was sent of one kind, optionally to one channel. */
  of(kind: Sent['kind'], channelId?: string): Sent[] {
    return this.sent.filter((s) => s.kind === kind && (channelId === undefined || s.channelId === channelId));
  }

  /** The last version of the message posted with `ts` (its post, or its latest update). */
  latest(ts: string): Message | undefined {
    return this.sent.filter((s) => s.ts === ts && s.kind !== 'ephemeral' && s.kind !== 'dm').at(-1)?.message;
  }
}
