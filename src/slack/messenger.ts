/** The Messenger the middle layer needs, on top of Bolt's Web API client. */
import type { webApi } from '@slack/bolt';
import { z } from 'zod';
import { MessengerError, type Messenger, type MessengerFailure } from '../ports/messenger.js';
import { messageText } from '../core/render/mrkdwn.js';

type WebClient = webApi.WebClient;

/** What users.info says of a person's time zone (the rest of the answer is not read). */
const UserZoneSchema = z.object({ user: z.object({ tz: z.string().min(1).optional() }).optional() });
/** What chat.getPermalink answers: the message's link (an https URL; nothing else is read). */
const PermalinkSchema = z.object({ permalink: z.string().url().startsWith('http') });

/** `onApiError` hears of every failed Web API call (metrics): its method and Slack's error code. */
export function slackMessenger(client: WebClient, onApiError: ApiErrorListener = () => undefined): Messenger {
  const call = <T>(method: string, run: () => Promise<T>) => callSlack(method, run, onApiError);
  return {
    async post(channelId, message) {
      const result = await call('chat.postMessage', () =>
        client.chat.postMessage({
          channel: channelId,
          text: messageText(message.text),
          blocks: message.blocks,
          ...(message.threadTs ? { thread_ts: message.threadTs } : {}),
        }),
      );
      if (!result.ts) throw slackCallError('chat.postMessage', 'no_ts_returned');
      return result.ts;
    },
    async update(channelId, ts, message) {
      await call('chat.update', () =>
        client.chat.update({ channel: channelId, ts, text: messageText(message.text), blocks: message.blocks }),
      );
    },
    async ephemeral(channelId, userId, message) {
      await call('chat.postEphemeral', () =>
        client.chat.postEphemeral({
          channel: channelId,
          user: userId,
          text: messageText(message.text),
          blocks: message.blocks,
        }),
      );
    },
    async dm(userId, message) {
      // chat.postMessage to a user id posts in the app's DM with them (chat:write; im:write opens it).
      const result = await call('chat.postMessage', () =>
        client.chat.postMessage({ channel: userId, text: messageText(message.text), blocks: message.blocks }),
      );
      if (!result.ts) throw slackCallError('chat.postMessage', 'no_ts_returned');
      // chat.update needs the DM's conversation id (D…), which Slack answers with.
      return { channelId: result.channel ?? userId, ts: result.ts };
    },
    async groupMembers(groupId) {
      const result = await call('usergroups.users.list', () => client.usergroups.users.list({ usergroup: groupId }));
      return result.users ?? [];
    },
    async channelMembers(channelId) {
      const members: string[] = [];
      let cursor: string | undefined;
      // Every page: Slack lists at most 1,000 members per call and hands a cursor for the next.
      do {
        const page = await call('conversations.members', () =>
          client.conversations.members({ channel: channelId, limit: 1_000, ...(cursor ? { cursor } : {}) }),
        );
        members.push(...(page.members ?? []));
        cursor = page.response_metadata?.next_cursor || undefined;
      } while (cursor);
      return members;
    },
    async publishHome(userId, view) {
      await call('views.publish', () => client.views.publish({ user_id: userId, view }));
    },
    async userTimeZone(userId) {
      const result = await call('users.info', () => client.users.info({ user: userId }));
      const parsed = UserZoneSchema.safeParse(result);
      return parsed.success ? parsed.data.user?.tz : undefined;
    },
    async permalink(channelId, ts) {
      const result = await call('chat.getPermalink', () =>
        client.chat.getPermalink({ channel: channelId, message_ts: ts }),
      );
      const parsed = PermalinkSchema.safeParse(result);
      if (!parsed.success) throw slackCallError('chat.getPermalink', 'no_permalink_returned');
      return parsed.data.permalink;
    },
    async uploadFile(channelId, file) {
      // files.uploadV2: getUploadURLExternal, the bytes to that URL, then completeUploadExternal.
      const common = {
        channel_id: channelId,
        file: Buffer.from(file.bytes),
        filename: file.filename,
        title: file.title,
        alt_text: file.altText,
      };
      await call('files.uploadV2', () =>
        file.threadTs ? client.filesUploadV2({ ...common, thread_ts: file.threadTs }) : client.filesUploadV2(common),
      );
    },
  };
}

export type ApiErrorListener = (method: string, code: string) => void;

/** Web API errors carry Slack's error code in data.error; keep just that (never the request). */
export async function callSlack<T>(method: string, run: () => Promise<T>, onApiError: ApiErrorListener): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const code = slackErrorCode(error);
    onApiError(method, code);
    throw slackCallError(method, code, retryAfterMsOf(error));
  }
}

/** Slack's codes, in the middle layer's words (ports/messenger.ts). */
function failureOf(code: string): MessengerFailure {
  if (code === 'not_in_channel' || code === 'channel_not_found') return 'not-in-channel';
  if (isRateLimitCode(code)) return 'rate-limited';
  return 'other';
}

/** Slack's answer 429, as the Web API client or the platform words it. */
export function isRateLimitCode(code: string): boolean {
  return code === 'ratelimited' || code === 'rate_limited' || code === 'slack_webapi_rate_limited_error';
}

function slackCallError(method: string, code: string, retryAfterMs?: number): MessengerError {
  return new MessengerError(method, failureOf(code), code, retryAfterMs);
}

/** The Web API client refuses a 429 with Slack's Retry-After in seconds (rejectRateLimitedCalls). */
function retryAfterMsOf(error: unknown): number | undefined {
  const seconds =
    typeof error === 'object' && error !== null ? (error as { retryAfter?: unknown }).retryAfter : undefined;
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0 ? seconds * 1_000 : undefined;
}

export function slackErrorCode(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const data = (error as { data?: { error?: unknown } }).data;
    if (data && typeof data.error === 'string') return data.error;
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return 'unknown_error';
}
