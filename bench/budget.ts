/**
 * The budget phase of `npm run bench` (issue 36 §6): the API allows 10 requests per 10 s per key,
 * shared by everything the bot does, so what people wait for is the budget.
 * - Calls per change: a rename by name, filed and approved over signed HTTP against the built bot,
 *   counted at the simulator from the command to the record posted in the thread; cold (nothing
 *   cached: the bot's list cache has run out) and warm (a `list` a moment before).
 * - Command wait with the budget busy: a Cloud client of this process against a simulator of its
 *   own that enforces the real limit, with background jobs keeping its budget full of reads, and a
 *   person's command (a list read the cache cannot answer) every 2 s. "Before" is the throttle as
 *   it was: one lane for every read, round-robin between people and jobs, the same as today's
 *   throttle with no requests kept for people and the command in the background lane.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import { CloudClient } from '../src/cloud/client.js';
import type { ReadPriority } from '../src/ports/service-directory.js';
import type { SlackStandIn as FakeSlack } from '../src/playground/slack-stand-in.js';
import { CloudSimulator } from '../src/simulator/server.js';
import { DEMO_IDS, DEMO_ORG_ID, demoServices } from '../src/simulator/seed.js';
import { quiet } from './approvals.js';
import { percentiles } from './load.js';
import { clickBody, commandBody, signed } from './slack-requests.js';

export interface BudgetFigures {
  /** The calls of each change, as `METHOD /path` under the organization. */
  cold: string[][];
  warm: string[][];
  before: CommandWait;
  after: CommandWait;
}

export interface CommandWait {
  /** From asking to the answer, ms, of the commands answered. */
  waits: number[];
  /** Commands refused as "the budget is busy, try again in N s". */
  refused: number;
  /** Background reads the API answered, from the jobs' start to the last command's answer. */
  backgroundReads: number;
  seconds: number;
  /** Commands answered within a second. */
  withinASecond: number;
}

/** The bot's list cache (CLICKHOUSE_CACHE_SECONDS, 10 by default) has run out after this. */
const CACHE_RUN_OUT_MS = 11_000;
const SERVICES = [DEMO_IDS.ordersStaging, DEMO_IDS.eventsStaging, DEMO_IDS.sandboxDev];

export async function budgetPhase(
  port: number,
  slack: FakeSlack,
  simulator: CloudSimulator,
  runs: number,
): Promise<BudgetFigures> {
  const pool = new Pool(`http://127.0.0.1:${port}`);
  const send = async (body: string) =>
    (await pool.request({ path: '/slack/events', method: 'POST', body, headers: signed(body) })).body.text();
  const change = (i: number, warm: boolean) => oneChange({ send, slack, simulator }, i, warm);
  const cold: string[][] = [];
  const warm: string[][] = [];
  try {
    for (let i = 0; i < runs; i += 1) {
      await sleep(CACHE_RUN_OUT_MS);
      cold.push(await change(i, false));
      warm.push(await change(runs + i, true));
    }
  } finally {
    await pool.close();
  }
  return { cold, warm, before: await commandWait('before'), after: await commandWait('after') };
}

interface Bot {
  send: (body: string) => Promise<string>;
  slack: FakeSlack;
  simulator: CloudSimulator;
}

/** One rename by the service's current name, approved by a colleague; the API calls from the command to the record. */
async function oneChange({ send, slack, simulator }: Bot, i: number, warm: boolean): Promise<string[]> {
  const channel = `CBUDGET${i}`;
  const serviceId = SERVICES[i % SERVICES.length] ?? DEMO_IDS.ordersStaging;
  const base = `${slack.url}/respond`;
  if (warm) {
    const listed = randomUUID();
    const after = slack.calls.length;
    await send(commandBody(slack.url, 'list', 'UBENCH1', channel, `${base}/${listed}`));
    await slack.waitFor('response_url', (a) => a.responseUrlId === listed, { after, timeoutMs: 30_000 });
  }
  const from = simulator.requests.length;
  const after = slack.calls.length;
  const name = simulator.service(serviceId)?.name ?? serviceId;
  await send(commandBody(slack.url, `rename ${name} budget-${i}-${Date.now() % 100_000}`, 'UBENCH1', channel));
  const posted = await slack.waitFor(
    'chat.postMessage',
    (a) => a.channel === channel && JSON.stringify(a.blocks ?? '').includes('CR-'),
    { after, timeoutMs: 30_000 },
  );
  const id = /CR-[0-9A-F]{10}/.exec(JSON.stringify(posted.args.blocks))?.[0] ?? '';
  await send(clickBody(slack.url, id, undefined, { user: 'UBENCH2', channel }));
  await slack.waitFor('chat.postMessage', (a) => JSON.stringify(a.blocks ?? '').includes(`after change ${id}`), {
    after,
    timeoutMs: 30_000,
  });
  await quiet(slack);
  return simulator.requests
    .slice(from)
    .map((r) => `${r.method} ${r.path.replace(/^.*\/organizations\/[^/]+/, '').replace(serviceId, '{id}')}`);
}

const KEY = { keyId: 'budgetKey', keySecret: 'budget-key-secret' };
const JOBS = ['summaries', 'drift', 'followers'];
/** Reads each background job keeps asking for at once: together more than the budget serves. */
const JOB_READS = 4;
const COMMANDS = 8;
const COMMAND_EVERY_MS = 2_000;
/** Let the background jobs fill the budget and its queue before the first command. */
const WARM_UP_MS = 3_000;

async function commandWait(mode: 'before' | 'after'): Promise<CommandWait> {
  const simulator = await CloudSimulator.start({ ...KEY, orgId: DEMO_ORG_ID, services: demoServices() });
  simulator.faults.enforceRateLimit = { limit: 10, windowMs: 10_000 };
  const client = new CloudClient({
    baseUrl: simulator.url,
    ...KEY,
    orgId: DEMO_ORG_ID,
    cacheSeconds: 0,
    throttle: { limit: 10, windowMs: 10_000, ...(mode === 'before' ? { commandReserve: 0 } : {}) },
  });
  const commandPriority: ReadPriority = mode === 'before' ? 'background' : 'command';
  let running = true;
  const jobsStarted = performance.now();
  const job = async (name: string) => {
    while (running) {
      try {
        await client.getService(DEMO_IDS.ordersProd, { fresh: true, priority: 'background', person: name });
      } catch {
        await sleep(500); // refused as busy: a job tries again a little later
      }
    }
  };
  const jobs = JOBS.flatMap((name) => Array.from({ length: JOB_READS }, () => job(name)));
  await sleep(WARM_UP_MS);
  const waits: number[] = [];
  let refused = 0;
  const commands = Array.from({ length: COMMANDS }, async (_, i) => {
    await sleep(i * COMMAND_EVERY_MS);
    const asked = performance.now();
    try {
      await client.listServices([], { person: 'UPERSON', priority: commandPriority });
      waits.push(performance.now() - asked);
    } catch {
      refused += 1;
    }
  });
  await Promise.all(commands);
  const seconds = (performance.now() - jobsStarted) / 1000;
  // The jobs read one service's record, the commands the list.
  const backgroundReads = simulator.requests.filter((r) => r.path.includes('/services/')).length;
  running = false;
  await Promise.all(jobs);
  await client.close();
  await simulator.close();
  return { waits, refused, backgroundReads, seconds, withinASecond: waits.filter((ms) => ms < 1_000).length };
}

/** The rows of the phase's tables. */
export function budgetRows(f: BudgetFigures): { calls: string[][]; waits: string[][] } {
  const perChange = (runs: string[][]) => runs.map((calls) => calls.length).join(', ');
  const waitRow = (label: string, w: CommandWait) => {
    const { p50, max } = percentiles(w.waits);
    return [
      label,
      `${p50.toFixed(0)} ms`,
      `${max.toFixed(0)} ms`,
      `${w.withinASecond} of ${w.waits.length + w.refused}`,
      String(w.refused),
      ((w.backgroundReads / w.seconds) * 10).toFixed(1),
    ];
  };
  return {
    calls: [
      ['cold (nothing cached)', perChange(f.cold), (f.cold[0] ?? []).join(', ')],
      ['warm (a `list` a moment before)', perChange(f.warm), (f.warm[0] ?? []).join(', ')],
    ],
    waits: [
      waitRow('before: one lane for every read', f.before),
      waitRow('after: people before background reads', f.after),
    ],
  };
}
