/** Both log formats: the shape a log pipeline reads, and secrets redacted in each. */
import { describe, expect, it } from 'vitest';
import { createLogger, logFields, type LogFormat } from '../../src/log.js';

const TOKEN = 'xoxb-1234-secret-bot-token';
const KEY_SECRET = 'key"secret\\with-quotes';
const BASIC = Buffer.from(`keyId:${KEY_SECRET}`).toString('base64');

function capture(format: LogFormat, level: 'debug' | 'info' = 'debug') {
  const lines: string[] = [];
  const logger = createLogger({ level, format, sink: (line) => lines.push(line) });
  logger.addSecrets(TOKEN, KEY_SECRET, BASIC);
  return { logger, lines };
}

describe('LOG_FORMAT=json', () => {
  it('writes one JSON object per line with time, level, message and the fields given', () => {
    const { logger, lines } = capture('json');
    logger.info(
      'change applied',
      logFields({ changeRequestId: 'CR-0123456789', userId: 'U0APPROVER', serviceId: 'svc-1', apiRequestId: 'req-9' }),
    );
    logger.warn('multi\nline %s %d message', { nested: true });
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line).not.toContain('\n');
    const [first, second] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(first).toMatchObject({
      level: 'info',
      msg: 'change applied',
      changeRequestId: 'CR-0123456789',
      userId: 'U0APPROVER',
      serviceId: 'svc-1',
      apiRequestId: 'req-9',
      name: 'clickhouse-bot',
    });
    expect(new Date(String(first?.time)).toISOString()).toBe(first?.time);
    expect(second).toMatchObject({ level: 'warn', msg: 'multi\nline %s %d message { nested: true }' });
  });

  it("keeps the level filter and Bolt's setLevel", () => {
    const { logger, lines } = capture('json', 'info');
    logger.debug('hidden');
    logger.setLevel('debug' as never);
    logger.debug('shown');
    expect(lines.map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual(['shown']);
  });

  it('redacts secrets, also where JSON escaped them, and Authorization headers', () => {
    const { logger, lines } = capture('json');
    logger.error('request failed:', new Error(`401 for ${KEY_SECRET} with ${TOKEN}`));
    logger.info({ headers: { authorization: `Basic ${BASIC}` } });
    logger.info(`headers: {"Authorization":"Bearer xoxb-other-token-123"}`);
    logger.info('fields too', logFields({ userId: TOKEN }));
    const joined = lines.join('\n');
    for (const secret of [TOKEN, KEY_SECRET, JSON.stringify(KEY_SECRET).slice(1, -1), BASIC, 'xoxb-other-token-123'])
      expect(joined).not.toContain(secret);
    expect(joined).toContain('[redacted]');
    for (const line of lines) expect(() => JSON.parse(line) as unknown).not.toThrow();
  });
});

describe('default text format', () => {
  it('stays a human-readable line, with the fields as key=value at the end', () => {
    const { logger, lines } = capture('text');
    logger.info('change applied', logFields({ changeRequestId: 'CR-0123456789', serviceId: 'my service' }));
    expect(lines[0]).toMatch(
      /^\d{4}-\d\d-\d\dT[\d:.]+Z INFO \[clickhouse-bot\] change applied changeRequestId=CR-0123456789 serviceId="my service"$/,
    );
  });

  it('redacts secrets', () => {
    const { logger, lines } = capture('text');
    logger.error(`boom ${TOKEN}`, { auth: `Basic ${BASIC}` }, logFields({ userId: KEY_SECRET }));
    const joined = lines.join('\n');
    for (const secret of [TOKEN, BASIC]) expect(joined).not.toContain(secret);
    expect(joined).not.toContain('secret\\with');
    expect(joined).not.toContain('key"secret');
  });
});
