/**
 * Answers through a response_url with undici rather than Bolt's respond (which uses fetch): the
 * benchmark showed fetch's streams costing about as much CPU per answer as the rest of the
 * command, and at hundreds of commands a second that CPU delays the next acks. The answer goes
 * out through undici's dispatcher directly (the same global agent and keep-alive pool that
 * `request()` uses): Slack's answer to it is a status and a few bytes nobody reads, so the body
 * stream, the async-context resource and the header object `request()` builds for every call
 * were pure cost (about a fifth of the bot's CPU per command went to undici).
 */
import { getGlobalDispatcher } from 'undici';
import type { Message } from '../ports/messenger.js';
import { messageText } from '../core/render/mrkdwn.js';

export interface ResponseOptions {
  responseType?: 'ephemeral' | 'in_channel';
  replaceOriginal?: boolean;
}

export type Reply = (message: Pick<Message, 'text'> & Partial<Pick<Message, 'blocks'>>) => Promise<void>;

const JSON_HEADERS = { 'content-type': 'application/json' };

export function replyTo(responseUrl: string, options: ResponseOptions = {}): Reply {
  return async (message) => {
    const body = JSON.stringify({
      response_type: options.responseType ?? 'ephemeral',
      ...(options.replaceOriginal === undefined ? {} : { replace_original: options.replaceOriginal }),
      text: messageText(message.text),
      ...(message.blocks ? { blocks: message.blocks } : {}),
    });
    const status = await post(responseUrl, body);
    if (status >= 400) throw new Error(`Slack refused the response_url answer (${status})`);
  };
}

/** POSTs `body` as JSON; resolves with the answer's status once its body has been read (and dropped). */
function post(url: string, body: string): Promise<number> {
  const { origin, pathname, search } = new URL(url);
  return new Promise((resolve, reject) => {
    let status = 0;
    getGlobalDispatcher().dispatch(
      { origin, path: pathname + search, method: 'POST', body, headers: JSON_HEADERS },
      {
        onRequestStart: () => undefined,
        onResponseStart: (_controller, statusCode) => {
          status = statusCode;
        },
        onResponseEnd: () => resolve(status),
        onResponseError: (_controller, error) => reject(error),
      },
    );
  });
}
