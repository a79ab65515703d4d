/**
 * The load generator, in its own long-lived process (forked by run.ts, steps sent over IPC) so
 * that its clock is not held up by the fake Slack receiving the bot's answers, and its JIT stays
 * warm from step to step. Each step is open-loop: requests start on schedule whether or not
 * earlier ones have answered.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import { clickBody, commandBody, signed } from './slack-requests.js';

export interface LoadStep {
  port: number;
  rate: number;
  seconds: number;
  kind: 'list' | 'approve';
  requestId: string;
  responseUrlBase: string;
}

export interface Latency {
  p50: number;
  p99: number;
  max: number;
  errors: number;
}

async function run(step: LoadStep): Promise<Latency> {
  const pool = new Pool(`http://127.0.0.1:${step.port}`, { connections: 256, pipelining: 1 });
  const make = step.kind === 'list' ? () => commandBody(step.responseUrlBase, 'list') : () => clickBody(step.responseUrlBase, step.requestId);
  const latencies: number[] = [];
  let errors = 0;
  const total = step.rate * step.seconds;
  const started = performance.now();
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < total; i += 1) {
    const wait = started + (i * 1000) / step.rate - performance.now();
    if (wait > 1) await sleep(wait);
    const body = make();
    const sent = performance.now();
    inFlight.push(
      pool
        .request({ path: '/slack/events', method: 'POST', body, headers: signed(body) })
        .then(async (res) => {
          await res.body.text();
          if (res.statusCode !== 200) errors += 1;
          latencies.push(performance.now() - sent);
        })
        .catch(() => {
          errors += 1;
        }),
    );
  }
  await Promise.all(inFlight);
  await pool.close();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  return { p50: at(0.5), p99: at(0.99), max: latencies[latencies.length - 1] ?? NaN, errors };
}

process.on('message', (step: LoadStep) => {
  void run(step).then((latency) => process.send?.(latency));
});
