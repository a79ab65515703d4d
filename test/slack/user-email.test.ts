/**
 * Messenger.userEmail: a Slack user's profile email (users.info `user.profile.email`), so that a
 * person named with @ can be matched to a member of the organization. Against a stubbed client
 * (what Slack may answer) and, over HTTP, Bolt's own Web API client against the Slack stand-in.
 */
import { webApi } from '@slack/bolt';
import { afterEach, describe, expect, it } from 'vitest';
import { SlackStandIn } from '../../src/playground/slack-stand-in.js';
import { MessengerError } from '../../src/ports/messenger.js';
import { slackMessenger } from '../../src/slack/messenger.js';

/** A client whose users.info answers (or fails with) what the test says. */
function clientAnswering(answer: () => Promise<unknown>): webApi.WebClient {
  return { users: { info: answer } } as unknown as webApi.WebClient;
}

describe('userEmail', () => {
  it.each([
    [
      'the profile email, trimmed',
      { ok: true, user: { profile: { email: ' jane@example.com ' } } },
      'jane@example.com',
    ],
    ['nothing for a person without one', { ok: true, user: { profile: {} } }, undefined],
    ['nothing for an empty one', { ok: true, user: { profile: { email: '  ' } } }, undefined],
    ['nothing for an answer without a profile (a bot user)', { ok: true, user: { id: 'B1' } }, undefined],
    ['nothing for an odd answer', { ok: true, user: { profile: { email: 42 } } }, undefined],
  ])('answers %s', async (_what, answer, expected) => {
    const messenger = slackMessenger(clientAnswering(() => Promise.resolve(answer)));
    expect(await messenger.userEmail('U1')).toBe(expected);
  });

  it("fails with Slack's code, told to the metrics, when users.info fails", async () => {
    const heard: string[] = [];
    const failing = clientAnswering(() =>
      Promise.reject(Object.assign(new Error('x'), { data: { error: 'user_not_found' } })),
    );
    const messenger = slackMessenger(failing, (method, code) => heard.push(`${method} ${code}`));
    const error = await messenger.userEmail('U404').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MessengerError);
    expect((error as MessengerError).code).toBe('user_not_found');
    expect(heard).toStrictEqual(['users.info user_not_found']);
  });
});

describe('userEmail over HTTP, against the Slack stand-in', () => {
  let slack: SlackStandIn | undefined;
  afterEach(async () => {
    await slack?.close();
    slack = undefined;
  });

  it('reads the email Slack has for the person, and none without the users:read.email scope', async () => {
    slack = await SlackStandIn.start();
    slack.userEmails.set('U0JANE', 'jane@example.com');
    const client = new webApi.WebClient('xoxb-test', { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
    const messenger = slackMessenger(client);
    expect(await messenger.userEmail('U0JANE')).toBe('jane@example.com');
    expect(await messenger.userEmail('U0NOBODY')).toBeUndefined();
    slack.emailScope = false;
    expect(await messenger.userEmail('U0JANE')).toBeUndefined();
    expect(slack.calls.filter((call) => call.method === 'users.info').map((call) => call.args.user)).toStrictEqual([
      'U0JANE',
      'U0NOBODY',
      'U0JANE',
    ]);
  });
});
