/**
 * Answers through a response_url with undici's request rather than Bolt's respond (which uses
 * fetch): the benchmark showed fetch's streams costing about as much CPU per answer as the rest
 * of the command, and at hundreds of commands a second that CPU delays the next acks.
 */
import { request } from 'undici';
import type { Message } from '../ports/messenger.js';
import { messageText } from '../core/render/mrkdwn.js';

export interface ResponseOptions {
  responseType?: 'ephemeral' | 'in_channel';
  replaceOriginal?: boolean;
}

export type Reply = (message: Pick<Message, 'text'> & Partial<Pick<Message, 'blocks'>>) => Promise<void>;

export function replyTo(responseUrl: string, options: ResponseOptions = {}): Reply {
  return async (message) => {
    const response = await request(responseUrl, {
      method: 'POST',
      body: responseBody(message, options),
      headers: { 'content-type': 'application/json' },
    });
    await response.body.dump();
    if (response.statusCode >= 400) throw new Error(`Slack refused the response_url answer (${response.statusCode})`);
  };
}

/** An answer as Slack takes it, in a response_url post or in a slash command's acknowledgement. */
export function responseBody(message: Parameters<Reply>[0], options: ResponseOptions = {}): string {
  return JSON.stringify({
    response_type: options.responseType ?? 'ephemeral',
    ...(options.replaceOriginal === undefined ? {} : { replace_original: options.replaceOriginal }),
    text: messageText(message.text),
    ...(message.blocks ? { blocks: message.blocks } : {}),
  });
}
