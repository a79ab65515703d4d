/**
 * The command runner in process: every command of the catalogue reaches a runner and answers,
 * and failures of the API or the store become sentences, without Slack, HTTP or Redis.
 */
import { describe, expect, it } from 'vitest';
import { COMMAND_CATALOGUE } from '../../src/core/command/catalogue.js';
import { STORE_DOWN_TEXT } from '../../src/core/render/errors.js';
import { CloudApiError } from '../../src/core/service/api-error.js';
import { StoreUnavailableError } from '../../src/ports/index.js';
import { allTexts } from '../core/render/block-kit.js';
import { CHANNEL, inProcess } from '../support/in-process.js';

describe('runCommand, in process', () => {
  it.each(COMMAND_CATALOGUE.map((spec) => [spec.name, spec.example] as const))(
    'answers the example of %s without an internal error',
    async (_name, example) => {
      const h = inProcess();
      const replies = await h.command(example);
      const answers = [
        ...replies.map((r) => `${r.text}\n${allTexts(r.blocks)}`),
        ...h.modals.views.map((v) => JSON.stringify(v)),
      ];
      expect(answers.length).toBeGreaterThan(0);
      for (const answer of answers) expect(answer).not.toMatch(/went wrong|internal error|could not be posted/);
    },
  );

  it('answers an unknown word with help', async () => {
    const [answer] = await inProcess().command('frobnicate orders-prod');
    expect(allTexts(answer?.blocks ?? [])).toContain('`frobnicate` is not a command I know');
  });

  it("gives the API's status and request id when the API fails", async () => {
    const h = inProcess();
    h.directory.listServices = () =>
      Promise.reject(new CloudApiError('http', 'unavailable', { status: 503, requestId: 'req-503' }));
    const [answer] = await h.command('list');
    expect(answer?.text).toBe(
      ':x: /clickhouse list failed: ClickHouse Cloud had an internal error. Try again in a few minutes. (status 503, request id `req-503`)',
    );
  });

  it('says the store is not answering when it is not', async () => {
    const h = inProcess();
    h.changeStore.listPending = () => Promise.reject(new StoreUnavailableError('Connection is closed.'));
    const [answer] = await h.command('pending');
    expect(answer?.text).toBe(STORE_DOWN_TEXT);
  });

  it('posts a change request publicly and answers the requester privately', async () => {
    const h = inProcess();
    const [answer] = await h.command('release-channel orders-prod slow');
    expect(answer?.text).toMatch(/^:memo: Change request `CR-[0-9A-F]+` is posted in the channel/);
    expect(h.messenger.of('post', CHANNEL)).toHaveLength(1);
    expect(h.directory.updates).toHaveLength(0);
  });

  it('adds, lists and removes a schedule of this channel only', async () => {
    const h = inProcess();
    await h.command('schedule add "0 9 * * 1-5" tag:env=prod');
    const [schedule] = await h.scheduleStore.listSchedules(CHANNEL);
    expect(schedule).toMatchObject({ cron: '0 9 * * 1-5', filters: ['tag:env=prod'], timeZone: 'UTC' });
    expect((await h.command('schedule remove sch-elsewhere'))[0]?.text).toContain('This channel has no schedule');
    expect((await h.command(`schedule remove ${schedule?.id}`, undefined, 'C0OTHER'))[0]?.text).toContain(
      'This channel has no schedule',
    );
    expect((await h.command(`schedule remove ${schedule?.id}`))[0]?.text).toContain('Removed schedule');
    expect(await h.scheduleStore.listSchedules()).toStrictEqual([]);
    await h.scheduler.stop();
  });
});
