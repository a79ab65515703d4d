/**
 * `npm run bench`: acknowledgement latency of the built bot against a bare Bolt app under load,
 * the bot's time from command to answer, Cloud API calls saved by the cache and single flight,
 * rendering cost, and peak memory. Everything runs on this machine over loopback: this process
 * (the simulator and a fake Slack Web API), a real Redis (REDIS_URL), and in processes of their
 * own the load generator, the bot (node dist/main.js) and the baseline (node
 * dist-bench/bench/bare-bolt.js): both targets are compiled JavaScript started the same way,
 * loaded by the same generator, in alternating rounds.
 * Load is open-loop: requests start on schedule whether or not earlier ones have answered.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import { listBlocks } from '../src/core/render/service.js';
import { summaryMessages } from '../src/core/summary/index.js';
import { ServiceRecordSchema } from '../src/core/service/schema.js';
import { CloudSimulator } from '../src/simulator/server.js';
import { DEMO_ORG_ID, demoServices, syntheticServices } from '../src/simulator/seed.js';
import { SlackStandIn as FakeSlack } from '../src/playground/slack-stand-in.js';
import { epochMs, percentiles, type Latency, type LoadStep, type StepResult } from './load.js';
import { BENCH_SECRET, commandBody, signed } from './slack-requests.js';
import { chartRenderingCost, chartRow } from './chart.js';
import { approvalPhase, type ApprovalFigures } from './approvals.js';
import { budgetPhase, budgetRows, type BudgetFigures } from './budget.js';
import type { TraceStep } from './redis-trace.js';
import { startBenchRedis } from './redis-server.js';
import { timerScale } from './timers.js';

const KEY_ID = 'benchKey';
const KEY_SECRET = 'bench-key-secret';
const RATES = (process.env.BENCH_RATES ?? '50,200,500').split(',').map(Number);
/** The answers phase's rates; BENCH_RATES by default. */
const ANSWER_RATES = (process.env.BENCH_ANSWER_RATES ?? RATES.join(',')).split(',').map(Number);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
/** Each step runs this many times, rotating which target goes first; medians are reported. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const KIND_NAMES: readonly string[] = ['list', 'list-new-channel', 'show', 'approve'] satisfies LoadStep['kind'][];
const kindsOf = (names: string) =>
  names.split(',').filter((kind): kind is LoadStep['kind'] => KIND_NAMES.includes(kind));
/** The answers phase's kinds, comma-separated. */
const ANSWER_KINDS = kindsOf(process.env.BENCH_ANSWER_KINDS ?? 'show,approve');
/** The acks phase's kinds of request (LoadStep['kind']), comma-separated. */
const KINDS = kindsOf(process.env.BENCH_KINDS ?? 'list,show,approve');
/** Sequential approvals of the approval phase. */
const APPROVALS = Number(process.env.BENCH_APPROVALS ?? 30);
/**
 * Which parts run: the command line's arguments (`npm run bench -- acks budget`), else
 * BENCH_PHASES (comma-separated), else all: acks (the acknowledgement table and CPU per request),
 * answers (the bot's answer time against a bare Bolt app answering with respond()), approvals,
 * budget (Cloud API calls per change, a command's wait with the budget busy), timers, calls
 * (Cloud API calls, rendering, memory). BENCH_ACKS_ONLY=1 is BENCH_PHASES=acks.
 */
const PHASES = new Set(
  process.argv.length > 2
    ? process.argv.slice(2).flatMap((arg) => arg.split(','))
    : (process.env.BENCH_ACKS_ONLY === '1'
        ? 'acks'
        : (process.env.BENCH_PHASES ?? 'acks,answers,approvals,budget,timers,calls')
      ).split(','),
);
/** Changes of each kind (cold, warm) the budget phase counts. */
const BUDGET_RUNS = Number(process.env.BENCH_BUDGET_RUNS ?? 3);
/**
 * The bots measured side by side, each with its own environment: one today. Issue 36 ran the bot
 * with its acknowledging thread beside the bot on Bolt's own HTTPReceiver here (commit c00f2f8,
 * docs/performance.md "One way to acknowledge"); another variant is one more entry.
 */
const BOT_VARIANTS: Array<{ name: string; env: Record<string, string> }> = [{ name: 'bot', env: {} }];

interface Target {
  name: string;
  port: number;
  process: ChildProcess;
}

async function main(): Promise<void> {
  // A Redis server of the bench's own: its command counts are the bot's alone.
  const redis = await startBenchRedis(await freePort());
  const slack = await FakeSlack.start();
  const simulator = await CloudSimulator.start({
    keyId: KEY_ID,
    keySecret: KEY_SECRET,
    orgId: DEMO_ORG_ID,
    services: demoServices(),
  });
  const env = {
    ...process.env,
    SLACK_BOT_TOKEN: 'xoxb-bench',
    SLACK_SIGNING_SECRET: BENCH_SECRET,
    SLACK_API_URL: slack.apiUrl,
    CLICKHOUSE_API_URL: simulator.url,
    CLICKHOUSE_KEY_ID: KEY_ID,
    CLICKHOUSE_KEY_SECRET: KEY_SECRET,
    CLICKHOUSE_ORG_ID: DEMO_ORG_ID,
    REDIS_URL: redis.url,
    ALLOW_SELF_APPROVAL: 'false',
    LOG_LEVEL: 'info', // the bot logs nothing per request at info; its start line says it is ready
  };
  const botArgs = [...(process.env.BENCH_BOT_NODE_ARGS ?? '').split(' ').filter(Boolean), 'dist/main.js'];
  const bots: Target[] = [];
  for (const variant of BOT_VARIANTS)
    bots.push(await startTarget(variant.name, botArgs, { ...env, ...variant.env }, /HTTP on port (\d+)/));
  const [bot] = bots;
  if (!bot) throw new Error('no bot to measure');
  const bare = await startTarget('bare Bolt', [besideThisFile('bare-bolt.js')], env, /listening (\d+)/);
  const answering = PHASES.has('answers')
    ? await startTarget(
        'bare Bolt answering',
        [besideThisFile('bare-bolt.js')],
        { ...env, BARE_ANSWERS: '1' },
        /listening (\d+)/,
      )
    : undefined;
  try {
    const rows: string[][] = [];
    // The bots share one Redis: a request created through one is clicked through every one.
    const requestId = await createChangeRequest(bot, slack);
    const answeredAt = recordAnswers(slack);
    const load = (target: Target, rate: number, kind: LoadStep['kind'], seconds = SECONDS) =>
      runLoadStep(
        { port: target.port, rate, seconds, kind, requestId, responseUrlBase: slack.url },
        target === bare ? undefined : answeredAt,
      );
    // Warm them up (JIT, connection pools, caches) before anything is recorded.
    for (const target of [bare, ...bots, ...(answering ? [answering] : [])])
      for (const kind of ['list', 'show', 'approve'] as const) await load(target, 100, kind, 2);
    for (const rate of PHASES.has('acks') ? RATES : []) {
      for (const kind of KINDS) {
        const steps = await rotatedRounds(
          [bare, ...bots],
          (target) => load(target, rate, kind),
          (target, step) =>
            process.stderr.write(
              `${kind} @ ${rate}/s ${target.name}: ack p50 ${step.p50.toFixed(1)} p99 ${step.p99.toFixed(1)} ms, CPU ${step.cpuPerRequestMs.toFixed(2)} ms/request\n`,
            ),
        );
        const bareSteps = steps.get(bare) ?? [];
        const baseline = medianLatency(bareSteps);
        const bareCpu = median3(bareSteps.map((s) => s.cpuPerRequestMs));
        rows.push([
          `${kind} @ ${rate}/s`,
          'bare Bolt',
          ...fmt(baseline).slice(0, 2),
          '1',
          '',
          '',
          bareCpu.toFixed(2),
          '1',
          '',
          String(baseline.errors),
        ]);
        for (const measuredBot of bots) {
          const botSteps = steps.get(measuredBot) ?? [];
          const measured = medianLatency(botSteps);
          const ratios = botSteps.map((b, i) => b.p99 / (bareSteps[i]?.p99 ?? NaN)).sort((x, y) => x - y);
          const answers = medianLatency(botSteps.map((b) => b.answers));
          const botCpu = median3(botSteps.map((s) => s.cpuPerRequestMs));
          rows.push([
            '',
            measuredBot.name,
            ...fmt(measured).slice(0, 2),
            (measured.p99 / baseline.p99).toFixed(2),
            `${ratios[0]?.toFixed(2)}-${ratios[ratios.length - 1]?.toFixed(2)}`,
            fmt(answers)[1] ?? '',
            botCpu.toFixed(2),
            (botCpu / bareCpu).toFixed(2),
            `${(median3(botSteps.map((b) => b.answeredInAck.length / b.sentAt.length)) * 100).toFixed(0)} %`,
            String(measured.errors + answers.errors),
          ]);
        }
      }
    }
    if (rows.length > 0)
      printTable(
        [
          'load',
          'target',
          'ack p50',
          'ack p99',
          'p99 ratio',
          'round ratios',
          'answer p99',
          'CPU ms/req',
          'CPU ratio',
          'answered in ack',
          'errors',
        ],
        rows,
      );

    if (answering) printAnswers(await compareAnswers(bots, answering, load));
    if (PHASES.has('approvals')) printApprovals(await approvalPhase(bot.port, slack, simulator, redis, APPROVALS));
    if (PHASES.has('budget')) printBudget(await budgetPhase(bot.port, slack, simulator, BUDGET_RUNS));
    if (PHASES.has('timers')) {
      const sizes = await timerScale(redis, [
        [10, 10],
        [10_000, 1_000],
      ]);
      printTable(
        [
          'timer scale: one look of every timer loop, nothing due',
          'Redis commands per look',
          'ms per look (median of 20)',
        ],
        sizes.map((s) => [
          `${s.timers.toLocaleString('en')} pending timers, ${s.waiting.toLocaleString('en')} waiting requests`,
          s.commandsPerLook.toFixed(1),
          s.msPerLook.toFixed(2),
        ]),
      );
    }
    if (!PHASES.has('calls')) return;
    const apiCalls = await countApiCalls(bot, simulator, slack);
    printTable(['Cloud API calls', 'count'], apiCalls);
    printTable(['rendering', 'median ms', 'blocks'], renderingCost());
    printTable(['chart rendering (median of 15)', 'ms', 'size'], [chartRow(chartRenderingCost())]);
    printTable(
      ['bot memory', 'MiB'],
      [['peak RSS (VmHWM) after the load', (peakRssKiB(bot.process) / 1024).toFixed(0)]],
    );
    process.stdout.write(
      `\nmachine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}; ${SECONDS} s per load step, median of ${ROUNDS} rounds\n`,
    );
  } finally {
    for (const each of bots) each.process.kill('SIGTERM');
    bare.process.kill('SIGTERM');
    answering?.process.kill('SIGTERM');
    loader?.kill('SIGTERM');
    await simulator.close();
    await slack.close();
    await redis.close();
  }
}

type Load = (target: Target, rate: number, kind: LoadStep['kind']) => Promise<MeasuredStep>;

/**
 * Runs one step per target per round, rotating which target goes first (so none always runs right
 * after another's load), with each step's CPU per request; the steps by target.
 */
async function rotatedRounds(
  targets: Target[],
  run: (target: Target) => Promise<MeasuredStep>,
  report: (target: Target, step: MeasuredStep) => void,
): Promise<Map<Target, MeasuredStep[]>> {
  const steps = new Map<Target, MeasuredStep[]>(targets.map((target) => [target, []]));
  for (let round = 0; round < ROUNDS; round += 1) {
    const order = [...targets.slice(round % targets.length), ...targets.slice(0, round % targets.length)];
    for (const target of order) {
      const cpuBefore = cpuMs(target.process);
      const step = await run(target);
      step.cpuPerRequestMs = (cpuMs(target.process) - cpuBefore) / step.sentAt.length;
      steps.get(target)?.push(step);
      report(target, step);
    }
  }
  return steps;
}

/**
 * `show SERVICE` commands and Approve clicks on a settled request (BENCH_ANSWER_KINDS) at each
 * rate, rotating the bots and a bare Bolt app that answers each with respond().
 */
async function compareAnswers(bots: Target[], answering: Target, load: Load): Promise<string[][]> {
  const rows: string[][] = [];
  for (const kind of ANSWER_KINDS)
    for (const rate of ANSWER_RATES) {
      const steps = await rotatedRounds(
        [answering, ...bots],
        (target) => load(target, rate, kind),
        (target, step) =>
          process.stderr.write(
            `answers ${kind} @ ${rate}/s ${target.name}: p50 ${step.answers.p50.toFixed(1)} p99 ${step.answers.p99.toFixed(1)} ms, CPU ${step.cpuPerRequestMs.toFixed(2)} ms/request\n`,
          ),
      );
      const bareSteps = steps.get(answering) ?? [];
      const baseline = medianLatency(bareSteps.map((s) => s.answers));
      const bareCpu = median3(bareSteps.map((s) => s.cpuPerRequestMs));
      rows.push([
        `${kind} @ ${rate}/s`,
        answering.name,
        ...fmt(baseline).slice(0, 2),
        '1',
        bareCpu.toFixed(2),
        '1',
        String(baseline.errors),
      ]);
      for (const bot of bots) {
        const botSteps = steps.get(bot) ?? [];
        const measured = medianLatency(botSteps.map((s) => s.answers));
        const botCpu = median3(botSteps.map((s) => s.cpuPerRequestMs));
        rows.push([
          '',
          bot.name,
          ...fmt(measured).slice(0, 2),
          (measured.p99 / baseline.p99).toFixed(2),
          botCpu.toFixed(2),
          (botCpu / bareCpu).toFixed(2),
          String(measured.errors),
        ]);
      }
    }
  return rows;
}

function printAnswers(rows: string[][]): void {
  printTable(
    [
      'command or click → its answer',
      'target',
      'answer p50',
      'answer p99',
      'p99 ratio',
      'CPU ms/req',
      'CPU ratio',
      'errors',
    ],
    rows,
  );
}

function printApprovals(f: ApprovalFigures): void {
  const ms = (v: number) => `${v.toFixed(1)} ms`;
  printTable(
    [`approval phase (${f.approvals} sequential approvals, each in its own channel)`, 'figure'],
    [
      [
        'click → record posted in the thread, p50 / p99 / max',
        `${ms(f.clickToRecord.p50)} / ${ms(f.clickToRecord.p99)} / ${ms(f.clickToRecord.max)}`,
      ],
      ['command → request posted, p50 / p99', `${ms(f.commandToPosted.p50)} / ${ms(f.commandToPosted.p99)}`],
      ['Cloud API calls per approval', f.apiCallsPerApproval.toFixed(1)],
      ['Redis commands per request (command → posted)', f.redisPerRequest.toFixed(1)],
      ['Redis commands per approval (click → record, whole server)', f.redisPerApproval.toFixed(1)],
      ['Redis commands per approval, less the idle rate', f.redisPerApprovalNet.toFixed(1)],
      ['Redis commands per second, idle bot', f.redisIdlePerSecond.toFixed(1)],
      ['by command, per request + approval', f.redisByCommand.map(([n, c]) => `${n} ${c.toFixed(1)}`).join(', ')],
    ],
  );
  printTrace('one request, command → posted, round trip by round trip (MONITOR)', f.requestSteps);
  printTrace('one approval, click → record, round trip by round trip (MONITOR)', f.steps);
}

function printBudget(figures: BudgetFigures): void {
  const { calls, waits } = budgetRows(figures);
  printTable(['Cloud API calls per change, filed and approved', 'each run', 'the calls of the first'], calls);
  printTable(
    [
      `a command's wait, background reads keeping the budget busy (${figures.after.waits.length + figures.after.refused} commands)`,
      'p50',
      'max',
      'answered within 1 s',
      'refused',
      'background reads per 10 s',
    ],
    waits,
  );
}

function printTrace(title: string, steps: TraceStep[]): void {
  printTable(
    [title, 'server commands', 'inside the script'],
    [
      ...steps.map((s) => [s.step, String(s.commands), s.inside]),
      ['**total**', `**${steps.reduce((sum, s) => sum + s.commands, 0)}** in ${steps.length} round trips`, ''],
    ],
  );
}

async function startTarget(name: string, args: string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<Target> {
  const port = await freePort();
  const child = spawn(process.execPath, args, {
    env: { ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      if (ready.test(seen)) resolve();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', (code) => reject(new Error(`${name} exited with ${code}: ${seen}`)));
  });
  return { name, port, process: child };
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const besideThisFile = (name: string) => fileURLToPath(new URL(name, import.meta.url));

let loader: ChildProcess | undefined;

interface MeasuredStep extends StepResult {
  /** CPU time (user + system) the target used during the step and its answers, per request. */
  cpuPerRequestMs: number;
  /** Command (or click) sent to its answer received on the response_url; errors = answers missing. */
  answers: Latency;
}

/** When each response_url answer reached the fake Slack, by response_url id. */
function recordAnswers(slack: FakeSlack): Map<string, number> {
  const answeredAt = new Map<string, number>();
  slack.on('call', (call) => {
    if (call.method === 'response_url' && typeof call.args.responseUrlId === 'string')
      answeredAt.set(call.args.responseUrlId, epochMs());
  });
  return answeredAt;
}

/**
 * Runs one load step in the load generator's process; for the bot, waits for every answer to be
 * posted (so the next step starts on an idle bot), then pauses as long for either target.
 */
async function runLoadStep(step: LoadStep, answeredAt?: Map<string, number>): Promise<MeasuredStep> {
  loader ??= fork(besideThisFile('load.js'));
  const child = loader;
  const result = await new Promise<StepResult>((resolve) => {
    child.once('message', (message) => resolve(message as StepResult));
    child.send(step);
  });
  // An answer in the acknowledgement is the command's answer, as Slack shows it.
  for (const [id, at] of result.answeredInAck) answeredAt?.set(id, at);
  const deadline = Date.now() + 30_000;
  while (answeredAt && Date.now() < deadline && result.sentAt.some(([id]) => !answeredAt.has(id))) await sleep(50);
  await sleep(1_000);
  const times = answeredAt
    ? result.sentAt.flatMap(([id, sent]) => {
        const at = answeredAt.get(id);
        return at === undefined ? [] : [at - sent];
      })
    : [];
  const answers = { ...percentiles(times), errors: answeredAt ? result.sentAt.length - times.length : 0 };
  return { ...result, answers, cpuPerRequestMs: NaN };
}

/** User + system CPU time of a process so far, from /proc (clock ticks of 10 ms). */
function cpuMs(child: ChildProcess): number {
  const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function median3(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
}

async function createChangeRequest(bot: Target, slack: FakeSlack): Promise<string> {
  const pool = new Pool(`http://127.0.0.1:${bot.port}`);
  const body = commandBody(slack.url, 'rename ml-dev ml bench');
  await (await pool.request({ path: '/slack/events', method: 'POST', body, headers: signed(body) })).body.text();
  const posted = await slack.waitFor('chat.postMessage', (a) => JSON.stringify(a.blocks ?? '').includes('CR-'));
  await pool.close();
  const id = /CR-[0-9A-F]{10}/.exec(JSON.stringify(posted.args.blocks))?.[0];
  if (!id) throw new Error('no change request was posted');
  return id;
}

function medianLatency(runs: Latency[]): Latency {
  const mid = (pick: (l: Latency) => number) =>
    runs.map(pick).sort((a, b) => a - b)[Math.floor(runs.length / 2)] ?? NaN;
  return {
    p50: mid((l) => l.p50),
    p99: mid((l) => l.p99),
    max: mid((l) => l.max),
    errors: runs.reduce((n, l) => n + l.errors, 0),
  };
}

const fmt = (l: Latency) => [l.p50, l.p99, l.max].map((v) => `${v.toFixed(1)} ms`);

async function countApiCalls(bot: Target, simulator: CloudSimulator, slack: FakeSlack): Promise<string[][]> {
  await sleep(11_000); // let the 10 s list cache expire, so the burst starts cold
  const pool = new Pool(`http://127.0.0.1:${bot.port}`, { connections: 128 });
  const send = async (text: string, channel: string) => {
    const body = commandBody(slack.url, text, 'UBENCH1', channel);
    await (await pool.request({ path: '/slack/events', method: 'POST', body, headers: signed(body) })).body.text();
  };
  simulator.resetRequests();
  const answered = slack.calls.length;
  await Promise.all(Array.from({ length: 100 }, (_, i) => send('list', `CLIST${i}`)));
  await waitForCalls(slack, 'response_url', answered, 100);
  const forLists = simulator.requests.length;
  await sleep(11_000);
  simulator.resetRequests();
  const before = slack.calls.length;
  await Promise.all(Array.from({ length: 20 }, (_, i) => send('summary', `CSUM${i}`)));
  await waitForCalls(slack, 'chat.postMessage', before, 20);
  await pool.close();
  return [
    ['100 concurrent `list` commands (cold cache)', String(forLists)],
    ['burst of 20 summaries (cold cache)', String(simulator.requests.length)],
  ];
}

async function waitForCalls(slack: FakeSlack, method: string, after: number, count: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (slack.calls.slice(after).filter((c) => c.method === method).length < count) {
    if (Date.now() > deadline)
      throw new Error(
        `only ${slack.calls.slice(after).filter((c) => c.method === method).length} of ${count} ${method} calls`,
      );
    await new Promise((resolve) => slack.once('call', resolve));
  }
}

function renderingCost(): string[][] {
  const rows: string[][] = [];
  for (const count of [1_000, 5_000]) {
    const services = syntheticServices(count).map((s) => ServiceRecordSchema.parse(s));
    const list = median(() => listBlocks(services, [], Date.now()));
    const summary = median(() => summaryMessages({ services, filters: [], drift: [], generatedAt: Date.now() }));
    const summaryBlocks = [summary.value.headline, ...summary.value.details].reduce((n, m) => n + m.blocks.length, 0);
    rows.push([`list of ${count} services`, list.ms.toFixed(1), String(list.value.length)]);
    rows.push([
      `summary of ${count} services (${summary.value.details.length + 1} messages)`,
      summary.ms.toFixed(1),
      String(summaryBlocks),
    ]);
  }
  return rows;
}

function median<T>(run: () => T, times = 15): { ms: number; value: T } {
  let value = run();
  const samples: number[] = [];
  for (let i = 0; i < times; i += 1) {
    const start = performance.now();
    value = run();
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  return { ms: samples[Math.floor(times / 2)] ?? NaN, value };
}

function peakRssKiB(child: ChildProcess): number {
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? NaN);
}

function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  process.stdout.write(
    `\n${line(header)}\n|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|\n${rows.map(line).join('\n')}\n`,
  );
}

await main();
