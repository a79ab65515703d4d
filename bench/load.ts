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
  /**
   * `list` typed again and again in one channel (answered by the acknowledging thread once the
   * bot has offered its answer), `list` from a new channel each time (always run by the main
   * thread, from its cache), `show orders-prod` (one service, read from the cache and rendered
   * every time: no ready answer can serve it), or Approve on a settled request.
   */
  kind: 'list' | 'list-new-channel' | 'show' | 'approve';
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
  /** Requests answered in their acknowledgement (a body with the message), by id, with when. */
  answeredInAck: Array<[id: string, epochMs: number]>;
}

/** Wall-clock milliseconds with sub-millisecond precision, comparable across processes. */
export const epochMs = (): number => performance.timeOrigin + performance.now();

export function percentiles(samples: number[]): Pick<Latency, 'p50' | 'p99' | 'max'> {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  return { p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1] ?? NaN };
}

/** A service of the demo organization that every `show` step asks for. */
const SHOWN_SERVICE = 'orders-prod';

async function run(step: LoadStep): Promise<StepResult> {
  const pool = new Pool(`http://127.0.0.1:${step.port}`, { connections: 256, pipelining: 1 });
  const make = (responseUrl: string, i: number) =>
    step.kind === 'approve'
      ? clickBody(step.responseUrlBase, step.requestId, responseUrl)
      : commandBody(
          step.responseUrlBase,
          step.kind === 'show' ? `show ${SHOWN_SERVICE}` : 'list',
          undefined,
          step.kind !== 'list-new-channel' ? undefined : `CNEW${step.rate}x${i}x${randomUUID().slice(0, 8)}`,
          responseUrl,
        );
  const latencies: number[] = [];
  const sentAt: StepResult['sentAt'] = [];
  const answeredInAck: StepResult['answeredInAck'] = [];
  let errors = 0;
  const total = step.rate * step.seconds;
  const started = performance.now();
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < total; i += 1) {
    const wait = started + (i * 1000) / step.rate - performance.now();
    if (wait > 1) await sleep(wait);
    const id = randomUUID();
    const body = make(`${step.responseUrlBase}/respond/${id}`, i);
    const sent = performance.now();
    sentAt.push([id, performance.timeOrigin + sent]);
    inFlight.push(
      pool
        .request({ path: '/slack/events', method: 'POST', body, headers: signed(body) })
        .then(async (res) => {
          const answer = await res.body.text();
          if (res.statusCode !== 200) errors += 1;
          latencies.push(performance.now() - sent);
          if (answer !== '') answeredInAck.push([id, epochMs()]);
        })
        .catch(() => {
          errors += 1;
        }),
    );
  }
  await Promise.all(inFlight);
  await pool.close();
  return { ...percentiles(latencies), errors, sentAt, answeredInAck };
}

process.on('message', (step: LoadStep) => {
  void run(step).then((result) => process.send?.(result));
});
