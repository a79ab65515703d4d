/**
 * The approval phase of `npm run bench`: sequential change requests, each approved right after it
 * is posted, over signed HTTP against the built bot. Measures what a person waits for (the click
 * to the record of the applied change in the thread) and what each approval costs: Cloud API
 * calls and Redis commands (the dedicated server's own count, so background loops are included:
 * their idle rate is measured apart and reported beside it).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import type { SlackStandIn as FakeSlack } from '../src/playground/slack-stand-in.js';
import type { CloudSimulator } from '../src/simulator/server.js';
import { DEMO_IDS } from '../src/simulator/seed.js';
import { epochMs, percentiles } from './load.js';
import type { BenchRedis } from './redis-server.js';
import { traceRedis, type TraceStep } from './redis-trace.js';
import { clickBody, commandBody, signed } from './slack-requests.js';

export interface ApprovalFigures {
  approvals: number;
  clickToRecord: { p50: number; p99: number; max: number };
  commandToPosted: { p50: number; p99: number };
  apiCallsPerApproval: number;
  redisPerRequest: number;
  redisPerApproval: number;
  /** The same less the idle rate over the time counted: the approval's own commands. */
  redisPerApprovalNet: number;
  /** Commands per second of the idle bot (ticks, leases), over a few quiet seconds. */
  redisIdlePerSecond: number;
  /** The most frequent commands of an approval, per approval. */
  redisByCommand: Array<[name: string, perApproval: number]>;
  /** One approval (the last), round trip by round trip, from MONITOR. */
  steps: TraceStep[];
  /** The request before it, command → posted, the same way. */
  requestSteps: TraceStep[];
}

const READING_MS = 2_500;
const SERVICES = [DEMO_IDS.mlDev, DEMO_IDS.sandboxDev, DEMO_IDS.eventsStaging, DEMO_IDS.ordersStaging];

export async function approvalPhase(
  port: number,
  slack: FakeSlack,
  simulator: CloudSimulator,
  redis: BenchRedis,
  count: number,
): Promise<ApprovalFigures> {
  const pool = new Pool(`http://127.0.0.1:${port}`);
  const send = async (body: string) =>
    (await pool.request({ path: '/slack/events', method: 'POST', body, headers: signed(body) })).body.text();
  const clickToRecord: number[] = [];
  const commandToPosted: number[] = [];
  let requestCommands = 0;
  let approvalCommands = 0;
  let apiCalls = 0;
  let countedMs = 0;
  let steps: TraceStep[] = [];
  let requestSteps: TraceStep[] = [];
  const statsBefore = await redis.commandStats();
  const idle = await idleRate(redis);
  for (let i = 0; i < count; i += 1) {
    // A channel of its own per approval, as approvals spread over channels: the channel's pacing
    // then holds the record only if it must wait behind its own request message.
    const channel = `CAPPROVE${i}`;
    const serviceId = SERVICES[i % SERVICES.length] ?? DEMO_IDS.mlDev;
    let commands = await redis.commandsProcessed();
    const sent = epochMs();
    const after = slack.calls.length;
    let id = '';
    const ask = async () => {
      await send(commandBody(slack.url, `rename ${serviceId} bench-${i}-${Date.now() % 100_000}`, 'UBENCH1', channel));
      const posted = await slack.waitFor(
        'chat.postMessage',
        (a) => a.channel === channel && JSON.stringify(a.blocks ?? '').includes('CR-'),
        { after, timeoutMs: 30_000 },
      );
      commandToPosted.push(posted.at - sent);
      id = /CR-[0-9A-F]{10}/.exec(JSON.stringify(posted.args.blocks))?.[0] ?? '';
      await quiet(slack);
    };
    if (i === count - 1) requestSteps = await traceRedis(redis.url, ask);
    else await ask();
    requestCommands += (await redis.commandsProcessed()) - commands;
    // A person reads the request before approving: past the bot's short memories of the request's
    // first moves (who opened their Home), so the approval pays for what an approval minutes later would.
    await sleep(READING_MS);
    const windowStart = Date.now();

    commands = await redis.commandsProcessed();
    const apiBefore = simulator.requests.length;
    const clicked = epochMs();
    const approve = async () => {
      await send(clickBody(slack.url, id, undefined, { user: 'UBENCH2', channel }));
      const record = await slack.waitFor(
        'chat.postMessage',
        (a) => JSON.stringify(a.blocks ?? '').includes(`after change ${id}`),
        { after, timeoutMs: 30_000 },
      );
      clickToRecord.push(record.at - clicked);
      await quiet(slack);
    };
    // The last approval is watched with MONITOR (which slows the server a little: its time is not counted apart).
    if (i === count - 1) steps = await traceRedis(redis.url, approve);
    else await approve();
    approvalCommands += (await redis.commandsProcessed()) - commands;
    countedMs += Date.now() - windowStart;
    apiCalls += simulator.requests.length - apiBefore;
  }
  await pool.close();
  const statsAfter = await redis.commandStats();
  const byCommand = [...statsAfter]
    .map(([name, calls]): [string, number] => [name, (calls - (statsBefore.get(name) ?? 0)) / count])
    .filter(([, perApproval]) => perApproval >= 0.5)
    .sort((a, b) => b[1] - a[1]);
  const click = percentiles(clickToRecord);
  const post = percentiles(commandToPosted);
  return {
    approvals: count,
    clickToRecord: click,
    commandToPosted: { p50: post.p50, p99: post.p99 },
    apiCallsPerApproval: apiCalls / count,
    redisPerRequest: requestCommands / count,
    redisPerApproval: approvalCommands / count,
    redisPerApprovalNet: (approvalCommands - (idle * countedMs) / 1_000) / count,
    redisIdlePerSecond: idle,
    redisByCommand: byCommand,
    steps,
    requestSteps,
  };
}

/** Lets the work after a post (thread replies, DMs, follow-ups) finish before counting. */
export async function quiet(slack: FakeSlack): Promise<void> {
  for (let seen = -1; seen !== slack.calls.length;) {
    seen = slack.calls.length;
    await sleep(150);
  }
}

async function idleRate(redis: BenchRedis): Promise<number> {
  const before = await redis.commandsProcessed();
  await sleep(3_000);
  return ((await redis.commandsProcessed()) - before) / 3;
}
