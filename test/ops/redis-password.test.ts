/**
 * The Redis password in logs (issue 22): one under 6 characters was not redacted, and only its
 * decoded form was registered, so "p%40ss" (as written in REDIS_URL) reached the log.
 */
import { describe, expect, it } from 'vitest';
import { createLogger, type LogFormat } from '../../src/log.js';
import { redisPasswordForms } from '../../src/store/redis/open.js';

function logWith(url: string, format: LogFormat) {
  const lines: string[] = [];
  const logger = createLogger({ format, sink: (line) => lines.push(line) });
  logger.addSecrets(...redisPasswordForms(url));
  return { logger, lines };
}

describe.each(['text', 'json'] as const)('the Redis password in %s logs', (format) => {
  it.each([
    ['a short password', 'redis://:pw1@10.0.0.5:6379', 'pw1'],
    ['a one-character password', 'redis://bot:x@10.0.0.5:6379/0', 'x'],
    ['a password with a user', 'redis://bot:Zq9@10.0.0.5:6379', 'Zq9'],
  ])('is redacted for %s, in URLs, quoted values and objects a library logs', (_what, url, password) => {
    const { logger, lines } = logWith(url, format);
    logger.error(`Redis at ${url} is not answering`);
    logger.error({ options: { host: '10.0.0.5', password } });
    logger.info(`AUTH "${password}" failed; password=${password}`);
    const text = lines.join('\n');
    expect(text).toContain('[redacted]');
    for (const line of lines) expect(line).not.toMatch(new RegExp(`[^\\p{L}\\p{N}]${password}[^\\p{L}\\p{N}]`, 'u'));
  });

  it('is redacted as written in REDIS_URL (percent-encoded) and decoded', () => {
    const { logger, lines } = logWith('redis://:p%40ss%2Fw0rd@10.0.0.5:6379', format);
    logger.error('failed: p%40ss%2Fw0rd');
    logger.error('failed: p@ss/w0rd');
    expect(lines.join('\n')).not.toMatch(/p%40ss|p@ss/);
  });

  it('does not hide ordinary words that merely contain a short password', () => {
    const { logger, lines } = logWith('redis://:pw@10.0.0.5:6379', format);
    logger.info('pwd and password are words');
    expect(lines.join('\n')).toContain('pwd and password are words');
  });
});

describe('a URL with credentials', () => {
  it('never shows its password, even one the logger was not told about', () => {
    const lines: string[] = [];
    const logger = createLogger({ sink: (line) => lines.push(line) });
    logger.error('could not reach rediss://user:unregistered@cache.example:6380/1');
    expect(lines.join('\n')).toContain('rediss://user:[redacted]@cache.example:6380/1');
  });
});
