/**
 * What ReadyAnswers (slack/ack-thread/ready-answers.ts) keeps on the main thread for `askedBefore`
 * stays small whatever people type: a slash command's text is the person's (Slack lets it be
 * tens of kilobytes), and every command, of any kind, is remembered until 4,096 are.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { ReadyAnswers } from '../../src/slack/ack-thread/ready-answers.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function heapAfterGc(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

describe('ReadyAnswers.askedBefore', () => {
  it('keeps a few bytes per command remembered, not its text', () => {
    const ready = new ReadyAnswers();
    const filler = 'x'.repeat(40_000);
    const before = heapAfterGc();
    for (let i = 0; i < 2_000; i += 1) {
      ready.askedBefore({ teamId: 'T1', channelId: 'C1', command: '/clickhouse', text: `list ${i} ${filler}` });
    }
    const retained = heapAfterGc() - before;
    // 2,000 texts of 40 kB are 80 MB; what is remembered of them must be far less.
    expect(retained).toBeLessThan(8 * 1024 * 1024);
    // Still remembered: the same command again was asked before, another one was not.
    expect(ready.askedBefore({ teamId: 'T1', channelId: 'C1', command: '/clickhouse', text: `list 7 ${filler}` })).toBe(
      true,
    );
    expect(
      ready.askedBefore({ teamId: 'T1', channelId: 'C1', command: '/clickhouse', text: `list 7 ${filler}!` }),
    ).toBe(false);
  });
});
