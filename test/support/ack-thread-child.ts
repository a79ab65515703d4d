/**
 * A child process serving the acknowledging thread on a free port, for measurements of its own
 * memory: it sends `{ port }` when it listens and answers each `'rss'` with its resident set
 * size after a full garbage collection (run with --expose-gc).
 */
import { startThread } from './ack-thread.js';

const collect = (globalThis as { gc?: () => void }).gc;
const running = await startThread((app) => app.command('/clickhouse', async ({ ack }) => ack()));
process.send?.({ port: running.port });
process.on('message', (message: unknown) => {
  if (message === 'rss') {
    collect?.();
    process.send?.({ rss: process.memoryUsage().rss });
  } else if (message === 'stop') {
    void running.receiver.stop().then(() => process.exit(0));
  }
});
