/**
 * `backups SERVICE` (issue 37, first bullet): the last good backup, the schedule, and the latest
 * backups newest first, read from the simulator's GET …/backups and …/backupConfiguration.
 */
import { describe, expect, it } from 'vitest';
import { DEMO_IDS } from '../../src/simulator/seed.js';
import { lastGoodBackupText } from '../../src/core/render/backups.js';
import { BackupSchema } from '../../src/core/service/backup.js';
import { answerText, useHarnesses } from './harness.js';

const harness = useHarnesses();

describe('backups SERVICE', () => {
  it('leads with the last good backup, then the schedule, then the backups newest first', async () => {
    const h = await harness();
    const text = await answerText(h, await h.command('backups orders-prod'));
    expect(text).toMatch(/Last good backup:\* <!date\^\d+\^\{ago\}\|[^>]+> \((full|incremental), \d+(\.\d)? GB\)/);
    expect(text).toContain('Backup schedule: every 6 hours, kept 2 days.');
    const backups = h.simulator.backups(DEMO_IDS.ordersProd);
    expect(backups.length).toBeGreaterThan(2);
    // Newest first, each with its short id.
    const shown = [...text.matchAll(/`([0-9a-f]{8})`/g)].map((match) => match[1]);
    expect(shown.slice(1, 4)).toStrictEqual(backups.slice(0, 3).map((backup) => backup.id.slice(0, 8)));
    const requests = h.simulator.requests.filter((r) => r.path.includes(DEMO_IDS.ordersProd));
    expect(requests.map((r) => `${r.method} ${r.path.split('/').at(-1) ?? ''}`).sort()).toStrictEqual([
      'GET backupConfiguration',
      'GET backups',
    ]);
  });

  it('states a start time in UTC and a retention in days', async () => {
    const h = await harness();
    const text = await answerText(h, await h.command('backups billing-prod'));
    expect(text).toContain('Backup schedule: every 24 hours, kept 7 days, from 02:30 UTC.');
  });

  it('answers an unknown service with the lookup sentence, and reads no backups', async () => {
    const h = await harness();
    const text = await answerText(h, await h.command('backups no-such-service'));
    expect(text).toContain('no-such-service');
    expect(h.simulator.requests.filter((r) => r.path.endsWith('/backups'))).toStrictEqual([]);
  });
});

describe('the last good backup line', () => {
  const backup = (status: string, startedAt: string) =>
    BackupSchema.parse({ id: `b-${status}-${startedAt}`, status, startedAt, type: 'full', sizeInBytes: 41e9 });

  it('names the newest backup that is done, not a newer one still running or failed', () => {
    const text = lastGoodBackupText([
      backup('in_progress', '2026-11-29T06:00:00Z'),
      backup('error', '2026-11-29T00:00:00Z'),
      backup('done', '2026-11-28T18:00:00Z'),
    ]);
    expect(text).toContain(`<!date^${Date.parse('2026-11-28T18:00:00Z') / 1000}^{ago}`);
    expect(text).toContain('(full, 41 GB)');
  });

  it('says so when there are none, or none finished well', () => {
    expect(lastGoodBackupText([])).toContain('No backups');
    expect(lastGoodBackupText([backup('error', '2026-11-29T00:00:00Z')])).toContain('No good backup');
  });
});
