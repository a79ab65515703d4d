/**
 * The load generator, in its own long-lived process (forked by run.ts, steps sent over IPC) so
 * that its clock is not held up by the fake Slack receiving the bot's answers, and its JIT stays
 * warm from step to step. Each step is open-loop: requests start on schedule whether or not
 * earlier ones have answered. The same generator, in the same process, loads the bot and the
 * bare app.
 */
import { randomUUID } from 'node:crypto';
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

export interface StepResult extends Latency {
  /** When each request was sent (epoch ms, sub-ms precision), by its response_url id: for the end-to-end times. */
  sentAt: Array<[id: string, epochMs: number]>;
}

/** Wall-clock milliseconds with sub-millisecond precision, comparable across processes. */
export const epochMs = (): number => performance.timeOrigin + performance.now();

export function percentiles(samples: number[]): Pick<Latency, 'p50' | 'p99' | 'max'> {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  return { p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1] ?? NaN };
}

async function run(step: LoadStep): Promise<StepResult> {
  const pool = new Pool(`http://127.0.0.1:${step.port}`, { connections: 256, pipelining: 1 });
  const make = (responseUrl: string) =>
    step.kind === 'list'
      ? commandBody(step.responseUrlBase, 'list', undefined, undefined, responseUrl)
      : clickBody(step.responseUrlBase, step.requestId, responseUrl);
  const latencies: number[] = [];
  const sentAt: StepResult['sentAt'] = [];
  let errors = 0;
  const total = step.rate * step.seconds;
  const started = performance.now();
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < total; i += 1) {
    const wait = started + (i * 1000) / step.rate - performance.now();
    if (wait > 1) await sleep(wait);
    const id = randomUUID();
    const body = make(`${step.responseUrlBase}/respond/${id}`);
    const sent = performance.now();
    sentAt.push([id, performance.timeOrigin + sent]);
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
  return { ...percentiles(latencies), errors, sentAt };
}

process.on('message', (step: LoadStep) => {
  void run(step).then((result) => process.send?.(result));
});
