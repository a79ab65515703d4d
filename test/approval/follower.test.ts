/**
 * The follower with a fake clock, a scripted directory and a recording messenger: what it reads,
 * how often, what it shows and says, and that it stops when told. No real sleeps: the clock jumps
 * to each wait's end once everything else has run.
 */
import { describe, expect, it } from 'vitest';
import { FOLLOW_READER, Follower } from '../../src/approval/follower.js';
import { DEFAULT_FOLLOW, followDelays, followReadTimes, type FollowSchedule } from '../../src/core/capacity/follow.js';
import type { ChangePlan, ChangeRequest, Operation } from '../../src/core/change/types.js';
import { PROGRESS_BLOCK } from '../../src/core/render/follow.js';
import { CloudApiError } from '../../src/core/service/api-error.js';
import type { ServiceRecord } from '../../src/core/service/schema.js';
import type { ReadOptions, ServiceDirectory } from '../../src/ports/index.js';
import { MessengerError } from '../../src/ports/index.js';
import { changeRequest, service, SERVICE_ID } from '../core/fixtures.js';
import { allTexts } from '../core/render/block-kit.js';
import { stringContaining } from '../support/matchers.js';
import { RecordingMessenger, type Sent } from '../support/recording-messenger.js';

const CHANNEL = 'C0123';
const MESSAGE_TS = '1690000000.000100';
const OTHER_ID = 'b2c3d4e5-6f70-4b8c-9d0e-1f2a3b4c5d6e';

/** Sleeps that wait for the test: `runUntil` moves the clock to the earliest one's end, one at a time. */
class FakeTime {
  now = 1_000_000;
  private readonly pending: Array<{ at: number; wake: () => void }> = [];

  readonly sleep = (ms: number, signal: AbortSignal): Promise<void> =>
    new Promise<void>((resolve) => {
      const entry = { at: this.now + ms, wake: resolve };
      this.pending.push(entry);
      signal.addEventListener(
        'abort',
        () => {
          this.drop(entry);
          resolve();
        },
        { once: true },
      );
    });

  get sleeping(): number {
    return this.pending.length;
  }

  private drop(entry: { at: number; wake: () => void }): void {
    const at = this.pending.indexOf(entry);
    if (at >= 0) this.pending.splice(at, 1);
  }

  /** A few turns of the event loop: whatever can run without the clock moving has run. */
  async idle(): Promise<void> {
    for (let turn = 0; turn < 10; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
  }

  /** Moves the clock to the earliest sleep's end and wakes it; false when nobody sleeps. */
  wakeNext(): boolean {
    const next = [...this.pending].sort((a, b) => a.at - b.at)[0];
    if (!next) return false;
    this.drop(next);
    this.now = Math.max(this.now, next.at);
    next.wake();
    return true;
  }

  /** Wakes sleepers one by one until `done` settles. */
  async runUntil(done: Promise<unknown>): Promise<void> {
    let settled = false;
    void done.finally(() => (settled = true));
    for (let round = 0; round < 1_000; round++) {
      await this.idle();
      if (settled) return;
      if (!this.wakeNext()) throw new Error('nobody sleeps, yet the follow has not ended');
    }
    throw new Error('the follow did not end within 1,000 waits');
  }
}

type Answer = Partial<ServiceRecord> | 'fail' | 'gone';

/** Answers each read of a service with the next scripted answer (the last one repeats). */
class ScriptedDirectory implements Pick<ServiceDirectory, 'getService'> {
  readonly reads: Array<{ serviceId: string; at: number; options: ReadOptions | undefined }> = [];
  private readonly inFlight = new Map<string, number>();
  maxInFlight = 0;
  /** While set, reads wait for it before answering. */
  gate: Promise<void> | undefined;

  constructor(
    private readonly time: FakeTime,
    private readonly scripts: Record<string, Answer[]>,
  ) {}

  async getService(serviceId: string, options?: ReadOptions): Promise<ServiceRecord | undefined> {
    this.reads.push({ serviceId, at: this.time.now, options });
    const now = (this.inFlight.get(serviceId) ?? 0) + 1;
    this.inFlight.set(serviceId, now);
    this.maxInFlight = Math.max(this.maxInFlight, now);
    // An answer that takes a turn, as a real one does: a second read could start meanwhile.
    await new Promise<void>((resolve) => setImmediate(resolve));
    await this.gate;
    this.inFlight.set(serviceId, now - 1);
    const script = this.scripts[serviceId] ?? [];
    const answer = script.length > 1 ? script.shift() : script[0];
    if (answer === undefined || answer === 'gone') return undefined;
    if (answer === 'fail') throw new CloudApiError('http', 'ClickHouse Cloud answered 503', { status: 503 });
    return service({ id: serviceId, ...answer });
  }

  readsOf(serviceId: string) {
    return this.reads.filter((read) => read.serviceId === serviceId);
  }
}

const stop: Operation = { endpoint: 'state', body: { command: 'stop' }, expect: { state: 'stopped' } };
const start: Operation = { endpoint: 'state', body: { command: 'start' }, expect: { state: 'running' } };
const scale: Operation = { endpoint: 'replicaScaling', body: { numReplicas: 5 }, expect: { numReplicas: 5 } };

function applied(operations: Operation[], overrides: Partial<ChangeRequest> = {}, serviceId = SERVICE_ID) {
  const plan: ChangePlan = {
    serviceId,
    serviceName: serviceId === SERVICE_ID ? 'orders-prod' : 'events-prod',
    update: {},
    operations,
    changes: [],
    warnings: [],
    before: {},
  };
  return changeRequest(plan, {
    id: `CR-${serviceId.slice(0, 4)}-${operations.map((o) => o.endpoint).join('-')}`,
    channelId: CHANNEL,
    status: 'applied',
    decidedBy: 'U0APPROVER',
    decidedAt: 1,
    messageTs: MESSAGE_TS,
    ...overrides,
  });
}

function setup(scripts: Record<string, Answer[]>, schedule: FollowSchedule = DEFAULT_FOLLOW) {
  const time = new FakeTime();
  const directory = new ScriptedDirectory(time, scripts);
  const messenger = new RecordingMessenger();
  const logs: string[] = [];
  const counted = { reads: 0, outcomes: [] as string[] };
  const follower = new Follower({
    cloud: directory,
    messenger,
    logger: { info: (line: string) => logs.push(line), warn: (line: string) => logs.push(line) },
    slashCommand: '/clickhouse',
    schedule,
    now: () => time.now,
    sleep: time.sleep,
    observe: { read: () => (counted.reads += 1), outcome: (outcome) => counted.outcomes.push(outcome) },
  });
  return { time, directory, messenger, logs, counted, follower };
}

/** The progress line of each update of the request's message, in order. */
const progressLines = (messenger: RecordingMessenger): string[] =>
  messenger.of('update').map((sent) => {
    const line = sent.message.blocks.find((block) => block.block_id === PROGRESS_BLOCK);
    return line ? allTexts([line]) : '(no progress line)';
  });
const replies = (messenger: RecordingMessenger): Sent[] => messenger.of('post');

describe('following a request the API accepted', () => {
  it('stop: shows stopping once, then replies in the thread when it is stopped', async () => {
    const { time, directory, messenger, counted, follower } = setup({
      [SERVICE_ID]: [{ state: 'stopping' }, { state: 'stopping' }, { state: 'stopped' }],
    });
    await time.runUntil(follower.follow(applied([stop])));

    expect(directory.reads.map((read) => read.at - 1_000_000)).toEqual([2_000, 5_000, 9_500]);
    expect(directory.reads[0]?.options).toEqual({ fresh: true, priority: 'background', person: FOLLOW_READER });
    // The second "stopping" changed nothing worth an update.
    expect(progressLines(messenger)).toEqual([
      stringContaining('is stopping… (read 1 time, 2 s since the API accepted)'),
      stringContaining('is stopped, 10 s after the API accepted.'),
    ]);
    // The record stays: the update is the request's message with one more line.
    expect(allTexts(messenger.of('update')[0]?.message.blocks ?? [])).toContain('Applied.');
    expect(replies(messenger).map((sent) => [sent.channelId, sent.message.threadTs])).toEqual([[CHANNEL, MESSAGE_TS]]);
    expect(allTexts(replies(messenger)[0]?.message.blocks ?? [])).toContain('is stopped, 10 s after the API accepted');
    expect(counted).toEqual({ reads: 3, outcomes: ['settled'] });
    expect(follower.following).toBe(0);
  });

  it('start: starting, then running; a request in a thread gets its reply there', async () => {
    const { time, messenger, follower } = setup({ [SERVICE_ID]: [{ state: 'starting' }, { state: 'running' }] });
    await time.runUntil(follower.follow(applied([start], { threadTs: '1690000000.000001' })));
    expect(progressLines(messenger)).toEqual([
      stringContaining('is starting…'),
      stringContaining('is running, 5 s after the API accepted.'),
    ]);
    expect(replies(messenger)[0]?.message.threadTs).toBe('1690000000.000001');
    expect(messenger.of('update').every((sent) => sent.ts === MESSAGE_TS)).toBe(true);
  });

  it('scaling: follows until the record shows the new values, then says so', async () => {
    const { time, messenger, counted, follower } = setup({
      [SERVICE_ID]: [{ numReplicas: 3 }, { numReplicas: 4 }, { numReplicas: 5 }],
    });
    await time.runUntil(follower.follow(applied([scale])));
    expect(progressLines(messenger)).toEqual([
      stringContaining('does not show the new capacity yet (replicas is 3, not 5)'),
      stringContaining('does not show the new capacity yet (replicas is 4, not 5)'),
      stringContaining('shows the new capacity'),
    ]);
    expect(counted.outcomes).toEqual(['settled']);
  });

  it('went elsewhere: stopped, then running again by hand; or gone', async () => {
    const first = setup({ [SERVICE_ID]: [{ state: 'stopping' }, { state: 'running' }] });
    await first.time.runUntil(first.follower.follow(applied([stop])));
    expect(allTexts(replies(first.messenger)[0]?.message.blocks ?? [])).toContain(
      'went elsewhere: it is running, not on its way to stopped',
    );
    expect(first.counted.outcomes).toEqual(['elsewhere']);
    expect(first.directory.reads).toHaveLength(2);

    const second = setup({ [SERVICE_ID]: ['gone'] });
    await second.time.runUntil(second.follower.follow(applied([stop])));
    expect(allTexts(replies(second.messenger)[0]?.message.blocks ?? [])).toContain('no longer exists');
  });

  it('never settles: reads exactly as often as the schedule plans, then says once that it is still moving', async () => {
    const { time, directory, messenger, counted, follower } = setup({ [SERVICE_ID]: [{ state: 'stopping' }] });
    await time.runUntil(follower.follow(applied([stop])));
    const planned = followDelays(DEFAULT_FOLLOW);
    expect(directory.reads).toHaveLength(planned.length);
    expect(time.now - 1_000_000).toBeLessThanOrEqual(DEFAULT_FOLLOW.totalMs);
    expect(progressLines(messenger)).toEqual([
      stringContaining('is stopping…'),
      stringContaining('is still stopping after 10 minutes; the bot stops watching.'),
    ]);
    expect(replies(messenger)).toHaveLength(1);
    expect(allTexts(replies(messenger)[0]?.message.blocks ?? [])).toContain('`/clickhouse show orders-prod`');
    expect(counted.outcomes).toEqual(['still-moving']);
  });

  it('leaves alone what has nothing to follow: an update alone, a request not applied, one never posted', async () => {
    const { directory, follower } = setup({ [SERVICE_ID]: [{ state: 'stopping' }] });
    const rename: Operation = { endpoint: 'update', body: { name: 'orders-next' } };
    await follower.follow(applied([rename]));
    await follower.follow({ ...applied([rename]), plan: { ...applied([rename]).plan, operations: undefined } });
    await follower.follow(applied([stop], { status: 'failed' }));
    const { messageTs: _ts, ...unposted } = applied([stop]);
    await follower.follow(unposted);
    expect(directory.reads).toHaveLength(0);
    expect(follower.following).toBe(0);
  });
});

describe('within the shared budget', () => {
  it('a failed read (503) is not retried at once: it uses up the next planned read too, and never throws', async () => {
    const { time, directory, messenger, logs, follower } = setup({
      [SERVICE_ID]: ['fail', { state: 'stopping' }, 'fail', { state: 'stopped' }],
    });
    await time.runUntil(follower.follow(applied([stop])));
    // After a failure the next planned read is skipped: the 2nd and the 5th are never made.
    const planned = followReadTimes(DEFAULT_FOLLOW);
    expect(directory.reads.map((read) => read.at - 1_000_000)).toEqual([0, 2, 3, 5].map((i) => planned[i]));
    expect(logs.filter((line) => line.includes('a read failed'))).toHaveLength(2);
    expect(allTexts(replies(messenger)[0]?.message.blocks ?? [])).toContain('is stopped, 42 s after the API accepted');
  });

  it('reads failing all along end the follow sooner, with a plain sentence', async () => {
    const { time, directory, messenger, counted, follower } = setup({ [SERVICE_ID]: ['fail'] });
    await time.runUntil(follower.follow(applied([stop])));
    expect(directory.reads).toHaveLength(Math.ceil(followDelays(DEFAULT_FOLLOW).length / 2));
    expect(allTexts(replies(messenger)[0]?.message.blocks ?? [])).toContain('The bot could not read');
    expect(counted.outcomes).toEqual(['still-moving']);
    expect(messenger.of('update')).toHaveLength(1);
  });

  it('one read at a time per service: a second request for it joins the first one’s reads', async () => {
    const { time, directory, messenger, follower } = setup({
      [SERVICE_ID]: [{ state: 'stopping' }, { state: 'stopping' }, { state: 'stopped' }],
      [OTHER_ID]: [{ numReplicas: 3 }, { numReplicas: 5 }],
    });
    const first = follower.follow(applied([stop]));
    const joined = follower.follow(applied([stop], { id: 'CR-JOINED', messageTs: '1690000000.000200' }));
    const elsewhere = follower.follow(applied([scale], {}, OTHER_ID));
    expect(follower.following).toBe(3);
    await time.runUntil(Promise.all([first, joined, elsewhere]));
    expect(directory.maxInFlight).toBe(1);
    // One loop for the service: three reads served both requests.
    expect(directory.readsOf(SERVICE_ID)).toHaveLength(3);
    expect(directory.readsOf(OTHER_ID)).toHaveLength(2);
    expect(
      replies(messenger)
        .map((sent) => sent.message.threadTs)
        .sort(),
    ).toEqual(['1690000000.000100', '1690000000.000100', '1690000000.000200']);
  });

  it('told twice about the same request, follows it once', async () => {
    const { time, directory, messenger, follower } = setup({
      [SERVICE_ID]: [{ state: 'stopping' }, { state: 'stopped' }],
    });
    const request = applied([stop]);
    await time.runUntil(Promise.all([follower.follow(request), follower.follow(request)]));
    expect(directory.reads).toHaveLength(2);
    expect(replies(messenger)).toHaveLength(1);
  });

  it('a request that joins a loop waiting long gets its first read on its own schedule', async () => {
    const { time, directory, follower } = setup({
      [SERVICE_ID]: Array.from({ length: 30 }, () => ({ state: 'stopping' })),
    });
    const first = follower.follow(applied([stop]));
    // Six reads in, the loop waits 15 s and more between reads.
    while (directory.reads.length < 6) {
      await time.idle();
      time.wakeNext();
    }
    await time.idle();
    const joinedAt = time.now;
    const joined = follower.follow(applied([start], { id: 'CR-START', messageTs: '1690000000.000300' }));
    await time.idle();
    time.wakeNext();
    await time.idle();
    expect(directory.reads.at(-1)?.at).toBe(joinedAt + DEFAULT_FOLLOW.firstMs);
    await time.runUntil(Promise.all([first, joined]));
  });
});

describe('when it cannot say', () => {
  it('a message that cannot be updated or a thread refused is logged, never thrown', async () => {
    const { time, messenger, logs, follower } = setup({ [SERVICE_ID]: [{ state: 'stopping' }, { state: 'stopped' }] });
    messenger.update = () => Promise.reject(new MessengerError('chat.update', 'rate-limited', 'ratelimited'));
    messenger.outside.add(CHANNEL);
    await time.runUntil(follower.follow(applied([stop])));
    expect(logs.filter((line) => line.includes('could not show its progress'))).toHaveLength(2);
    expect(logs.filter((line) => line.includes('could not post how following it ended'))).toHaveLength(1);
  });
});

describe('shutdown', () => {
  it('stops following at once: no read, update or reply after it, and no new follow', async () => {
    const { time, directory, messenger, logs, follower } = setup({ [SERVICE_ID]: [{ state: 'stopping' }] });
    const followed = follower.follow(applied([stop]));
    await time.idle();
    time.wakeNext();
    await time.idle();
    expect(directory.reads).toHaveLength(1);
    expect(time.sleeping).toBe(1);
    await follower.stop();
    await followed;
    expect(time.sleeping).toBe(0);
    expect(logs).toContain('shutdown: stopped following 1 change request(s) on their way');
    await follower.follow(applied([stop], { id: 'CR-LATE' }));
    await time.idle();
    expect(directory.reads).toHaveLength(1);
    expect(replies(messenger)).toHaveLength(0);
    expect(messenger.of('update')).toHaveLength(1);
    expect(follower.following).toBe(0);
  });

  it('a read in flight when the bot stops is answered, and nothing follows it', async () => {
    const { time, directory, messenger, follower } = setup({ [SERVICE_ID]: [{ state: 'stopped' }] });
    let answer = () => {};
    directory.gate = new Promise<void>((resolve) => (answer = resolve));
    const followed = follower.follow(applied([stop]));
    await time.idle();
    time.wakeNext();
    await time.idle();
    // The read has started, not answered: stop now.
    expect(directory.reads).toHaveLength(1);
    const stopped = follower.stop();
    answer();
    await stopped;
    await followed;
    expect(messenger.sent).toHaveLength(0);
  });
});

describe('a schedule of a few seconds', () => {
  it('follows on it, and says "after 3 s" when it runs out', async () => {
    const { time, directory, messenger, follower } = setup(
      { [SERVICE_ID]: [{ state: 'stopping' }] },
      { firstMs: 500, factor: 2, maxMs: 1_000, totalMs: 3_000 },
    );
    await time.runUntil(follower.follow(applied([stop])));
    expect(directory.reads.map((read) => read.at - 1_000_000)).toEqual([500, 1_500, 2_500]);
    expect(allTexts(replies(messenger)[0]?.message.blocks ?? [])).toContain('is still stopping after 3 s');
  });
});
