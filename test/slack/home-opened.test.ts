/** app_home_opened draws the Home tab only: the same event for the Messages tab draws nothing. */
import type { App } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import type { BotServices } from '../../src/commands/context.js';
import { registerHomeOpened } from '../../src/slack/listeners/events/home-opened.js';
import { RecordingMessenger } from '../support/recording-messenger.js';

type Handler = (args: { event: { type: string; user: string; tab: string } }) => Promise<void>;

function listen(homes: { opened: (userId: string) => Promise<void> } | undefined) {
  const handlers = new Map<string, Handler>();
  const app = { event: (name: string, handler: Handler) => handlers.set(name, handler) } as unknown as App;
  registerHomeOpened(app, {
    services: {} as BotServices,
    messenger: new RecordingMessenger(),
    accepting: () => true,
    formSeal: { open: () => undefined },
    ...(homes ? { homes } : {}),
  });
  return handlers;
}

describe('app_home_opened', () => {
  it('draws the Home tab of whoever opened it, and nothing for the Messages tab', async () => {
    const opened: string[] = [];
    const handler = listen({ opened: (userId) => Promise.resolve(void opened.push(userId)) }).get('app_home_opened');
    await handler?.({ event: { type: 'app_home_opened', user: 'U0BOB', tab: 'messages' } });
    await handler?.({ event: { type: 'app_home_opened', user: 'U0CAROL', tab: 'home' } });
    expect(opened).toStrictEqual(['U0CAROL']);
  });

  it('is not listened to without Home tabs', () => {
    expect(listen(undefined).size).toBe(0);
  });
});
