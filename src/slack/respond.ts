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

/**
 * An answer as Slack takes it, in a response_url post or in a slash command's acknowledgement.
 * Serialized once per blocks array and text: a cached list's blocks (commands/run.ts) are the same
 * array for every `list` within the cache window, so its answer is serialized once, not per command.
 */
export function responseBody(message: Parameters<Reply>[0], options: ResponseOptions = {}): string {
  const serialize = () =>
    JSON.stringify({
      response_type: options.responseType ?? 'ephemeral',
      ...(options.replaceOriginal === undefined ? {} : { replace_original: options.replaceOriginal }),
      text: messageText(message.text),
      ...(message.blocks ? { blocks: message.blocks } : {}),
    });
  if (!message.blocks) return serialize();
  let byText = serializedBodies.get(message.blocks);
  if (!byText) serializedBodies.set(message.blocks, (byText = new Map<string, string>()));
  const key = `${options.responseType ?? 'ephemeral'} ${String(options.replaceOriginal)} ${message.text}`;
  let body = byText.get(key);
  if (body === undefined) byText.set(key, (body = serialize()));
  return body;
}

/** Blocks are never changed once rendered; an array no longer used takes its bodies with it. */
const serializedBodies = new WeakMap<object, Map<string, string>>();
