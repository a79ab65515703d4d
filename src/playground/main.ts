/** `npm run playground`: the whole bot on one machine, with a web page standing in for Slack. */
import { startPlayground } from './playground.js';

const rawPort = process.env.PORT ?? '3000';
const port = /^\d{1,5}$/.test(rawPort.trim()) ? Number(rawPort) : Number.NaN;
if (!Number.isInteger(port) || port > 65535) {
  process.stderr.write(
    `The playground could not start: PORT must be a whole number from 0 to 65535, not "${rawPort}".\n`,
  );
  process.exit(1);
}
try {
  const playground = await startPlayground({
    port,
    ...(process.env.REDIS_URL ? { redisUrl: process.env.REDIS_URL } : {}),
  });
  process.stdout.write(
    `\nPlayground ready: open ${playground.url}/ in a browser.\nThe real bot runs against a simulated ClickHouse Cloud organization; nothing here reaches Slack or ClickHouse.\n\n`,
  );
  const stop = () => void playground.stop().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
} catch (error) {
  process.stderr.write(`The playground could not start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
