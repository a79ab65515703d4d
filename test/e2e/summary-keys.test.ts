/**
 * API keys in summaries end to end (issue 40): the real bot, the Cloud simulator over HTTP, the
 * Slack stand-in and Redis. The keys line and the keys to look at; a key disabled in the console
 * named in the next summary's drift, with who did it; a key the API will not list costs the keys
 * line only; one read of the keys per summary.
 */
import { describe, expect, it } from 'vitest';
import { DEMO_OTHER_KEY_IDS } from '../../src/simulator/seed.js';
import { consoleUser } from '../../src/simulator/state.js';
import { ACTION_APPROVE } from '../../src/core/render/change.js';
import { appliedMessage, CHANNEL, KEY_SECRET, requestChange, USERS, useHarnesses, type Harness } from './harness.js';
import { summaryPosted } from './summary-posts.js';

const harness = useHarnesses();

const keyReads = (h: Harness) => h.simulator.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/keys'));

async function summary(h: Harness, channel = CHANNEL) {
  const after = h.slack.calls.length;
  await h.command('summary', USERS.requester, channel);
  return summaryPosted(h, { after, channel });
}

describe('API keys in a summary', () => {
  it('has a keys line (never expiring, unused 90 days, admin) and names those keys in the thread, reading keys once', async () => {
    const h = await harness();
    const posted = await summary(h);
    expect(posted.head).toContain('*API keys*\n4 keys: :warning: 1 never expiring · 1 unused 90 days · 2 admin');
    expect(posted.thread).toContain('*API keys to look at* (3)');
    expect(posted.thread).toContain(
      `• *chat-ops bot* (…${KEY_SECRET.slice(-4)}): admin role _(the key this bot uses)_`,
    );
    expect(posted.thread).toContain('• *ci-readonly* (…q7Zk): never used (created 90+ days ago)');
    expect(posted.thread).toContain('• *terraform* (…T3rr): never expires · admin role');
    // Only the last four characters of a key are ever shown.
    expect(JSON.stringify(h.slack.calls)).not.toContain(KEY_SECRET);
    expect(keyReads(h)).toHaveLength(1);
  });

  it('names a key disabled in the console, and who disabled it, in the next summary', async () => {
    const h = await harness({ env: { CLICKHOUSE_CACHE_SECONDS: '0' } });
    const first = await summary(h);
    expect(first.head).toContain('First summary');

    h.simulator.changeKeyInConsole(DEMO_OTHER_KEY_IDS.unused, { state: 'disabled' }, consoleUser('jane@example.com'));
    const second = await summary(h);
    expect(second.head).toContain('1 change since the last summary: 0 via this bot, 1 elsewhere');
    expect(second.thread).toMatch(
      /• API key \*ci-readonly\* \(…q7Zk\): Disabled — :bust_in_silhouette: changed in the console by jane@example\.com at <!date\^\d+\^\{time\}\|[^>]+>/,
    );
    // Disabled, it is no longer a key to look at.
    expect(second.head).toContain('4 keys: :warning: 1 never expiring · 2 admin');
    expect(second.thread).not.toContain('• *ci-readonly*');
    expect(keyReads(h)).toHaveLength(2);

    const third = await summary(h);
    expect(third.head).toContain('No changes since the last summary');
  });

  it('credits a key disabled through the bot to its change request, and one disabled in the console to that person', async () => {
    const h = await harness({ env: { CLICKHOUSE_CACHE_SECONDS: '0' } });
    await summary(h);
    const { id } = await requestChange(h, 'key disable ci-readonly');
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await appliedMessage(h, id);
    h.simulator.changeKeyInConsole(
      DEMO_OTHER_KEY_IDS.neverExpires,
      { state: 'disabled' },
      consoleUser('sam@example.com'),
    );
    const second = await summary(h);
    expect(second.head).toContain('2 changes since the last summary: 1 via this bot, 1 elsewhere');
    expect(second.thread).toMatch(
      new RegExp(`• API key \\*ci-readonly\\* \\(…q7Zk\\): Disabled — :robot_face: via this bot \\(\`${id}\`\\)`),
    );
    expect(second.thread).toContain(
      '• API key *terraform* (…T3rr): Disabled — :bust_in_silhouette: changed in the console by sam@example.com',
    );
  });

  it('says when the keys cannot be listed, posts the summary anyway, and reports a change made meanwhile later', async () => {
    const h = await harness({ env: { CLICKHOUSE_CACHE_SECONDS: '0' } });
    await summary(h);
    h.simulator.keysForbidden = true;
    h.simulator.changeKeyInConsole(
      DEMO_OTHER_KEY_IDS.neverExpires,
      { expireAt: '2027-03-01T00:00:00Z' },
      consoleUser('sam@example.com'),
    );
    const refused = await summary(h);
    expect(refused.head).toContain("not read: the bot's API key may not list the organization's keys (status 403)");
    expect(refused.head).toContain('No changes since the last summary');

    h.simulator.keysForbidden = false;
    const later = await summary(h);
    expect(later.thread).toContain(
      '• API key *terraform* (…T3rr): Expiry: never → 2027-03-01 00:00 UTC — :bust_in_silhouette: changed in the console by sam@example.com',
    );
  });

  it('leaves keys out of the summary of a channel whose guardrails leave out the keys command', async () => {
    const h = await harness({
      organizations: [
        { name: 'analytics', channels: { [CHANNEL]: {}, C0DATA: { allow: ['list', 'show', 'summary'] } } },
      ],
    });
    const readOnly = await summary(h, 'C0DATA');
    expect(readOnly.head).not.toContain('API keys');
    expect(readOnly.thread).not.toContain('API keys');
    expect(keyReads(h)).toHaveLength(0);
    const open = await summary(h);
    expect(open.head).toContain('*API keys*\n4 keys');
    expect(keyReads(h)).toHaveLength(1);
  });
});
