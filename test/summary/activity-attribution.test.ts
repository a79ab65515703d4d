/** Summaries name who made each change from the activity log, and fall back (said once) when it cannot be read. */
import { describe, expect, it } from 'vitest';
import { CloudApiError } from '../../src/core/service/api-error.js';
import { DEMO_IDS } from '../../src/simulator/seed.js';
import { consoleUser } from '../../src/simulator/state.js';
import { REFUSED_RECHECK_MS } from '../../src/summary/drift-authors.js';
import { Summaries } from '../../src/summary/summaries.js';
import { allTexts } from '../core/render/block-kit.js';
import { BOB, CHANNEL, inProcess } from '../support/in-process.js';

const target = { channelId: CHANNEL, filters: [], snapshotKey: 'adhoc:test' };
const FALLBACK = "Who made each change is this bot's own guess from its change requests";

/** The in-process bot with a Summaries whose clock the test can move ahead of real time. */
function setup() {
  const h = inProcess();
  const clock = { offsetMs: 0 };
  const summaries = new Summaries({
    cloud: h.directory,
    audit: h.changeStore,
    snapshots: h.scheduleStore,
    messenger: h.messenger,
    logger: h.logger,
    now: () => Date.now() + clock.offsetMs,
  });
  /** Posts a summary and returns everything it posted, as text. */
  const summary = async (): Promise<string> => {
    const before = h.messenger.sent.length;
    expect(await summaries.post(target)).toStrictEqual({ ok: true });
    return h.messenger.sent
      .slice(before)
      .map((s) => allTexts(s.message.blocks))
      .join('\n');
  };
  /** A rename "in the console": the record changes and the activity log names the user. */
  const renameInConsole = (id: string, name: string, email = 'jane@example.com') => {
    const record = h.directory.state.get(id);
    if (!record) throw new Error(`no ${id}`);
    h.directory.state.put({ ...record, name });
    // On the bot's clock, which the test moves: on the real one, a rename made a millisecond after a
    // summary moved that clock on by 1 ms fell before the next window and was not attributed (1 CI run in many).
    h.directory.state.recordActivity(id, 'service_update_name', consoleUser(email), Date.now() + clock.offsetMs);
  };
  return { h, clock, summaries, summary, renameInConsole };
}

describe('drift attribution from the activity log', () => {
  it("names the console user, with the time in Slack's date format, and the bot's own change as the bot's", async () => {
    const { h, summary, renameInConsole } = setup();
    await summary();
    const id = await h.requestChange('rename legacy-reporting legacy-reports');
    await h.flow.decide('approve', id, BOB);
    renameInConsole(DEMO_IDS.searchProd, 'search-main');
    const text = await summary();
    expect(text).toContain('2 changes since the last summary: 1 via this bot, 1 elsewhere');
    expect(text).toMatch(
      /• \*search-main\* {2}`e7a3c6f0`: Renamed: search-prod → search-main — :bust_in_silhouette: changed in the console by jane@example\.com at <!date\^\d+\^\{time\}\|[^>]+>/,
    );
    expect(text).toMatch(
      new RegExp(
        `• \\*legacy-reports\\*  \`[0-9a-f]{8}\`: Renamed: .* — :robot_face: via this bot \\(\`${id}\`\\) at <!date`,
      ),
    );
    expect(text).not.toContain(FALLBACK);
  });

  it('reads the log only when there is drift to attribute', async () => {
    const { h, summary } = setup();
    let reads = 0;
    const read = h.directory.listActivities.bind(h.directory);
    h.directory.listActivities = (window) => {
      reads += 1;
      return read(window);
    };
    await summary();
    await summary();
    expect(reads).toBe(0);
  });

  it('reads the log once for summaries firing together, each naming the console user', async () => {
    const { h, summaries, renameInConsole } = setup();
    const keys = ['schedule:a', 'schedule:b', 'schedule:c', 'schedule:d', 'schedule:e'];
    for (const snapshotKey of keys) await summaries.post({ ...target, snapshotKey });
    renameInConsole(DEMO_IDS.searchProd, 'search-main');
    const read = h.directory.listActivities.bind(h.directory);
    let reads = 0;
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    h.directory.listActivities = async (window) => {
      reads += 1;
      await gate;
      return read(window);
    };
    const before = h.messenger.sent.length;
    const posts = keys.map((snapshotKey) => summaries.post({ ...target, snapshotKey }));
    await new Promise((resolve) => setImmediate(resolve));
    release();
    expect(await Promise.all(posts)).toStrictEqual(keys.map(() => ({ ok: true })));
    expect(reads).toBe(1);
    const named = h.messenger.sent
      .slice(before)
      .filter((s) => allTexts(s.message.blocks).includes('changed in the console by jane@example.com'));
    expect(named).toHaveLength(keys.length);
  });

  it.each([
    [403, "does not let the bot's API key read the organization's activities (status 403)"],
    [401, "does not let the bot's API key read the organization's activities (status 401)"],
    [500, "the organization's activities could not be read from ClickHouse Cloud (status 500)"],
  ])('falls back to the audit when the log answers %s, and says so once', async (status, why) => {
    const { h, clock, summary, renameInConsole } = setup();
    let reads = 0;
    h.directory.listActivities = () => {
      reads += 1;
      return Promise.reject(new CloudApiError('http', 'refused', { status }));
    };
    await summary();
    renameInConsole(DEMO_IDS.searchProd, 'search-main');
    const first = await summary();
    expect(first).toContain(FALLBACK);
    expect(first).toContain(why);
    expect(first).toContain(
      '• *search-main*  `e7a3c6f0`: Renamed: search-prod → search-main — _elsewhere_ (console, Terraform',
    );

    renameInConsole(DEMO_IDS.searchProd, 'search-again');
    clock.offsetMs += 1_000;
    const second = await summary();
    expect(second).toContain('Renamed: search-main → search-again — _elsewhere_ (console, Terraform');
    expect(second).not.toContain(FALLBACK);
    const warnings = h.logger.lines.filter((line) => line.includes('Drift attribution falls back'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).not.toContain('jane@example.com');
    // A refused key is not asked again for a while; other failures are retried at the next summary.
    expect(reads).toBe(status === 500 ? 2 : 1);
  });

  it('asks a refused key again after a while, and names people again once it may read the log', async () => {
    const { h, clock, summary, renameInConsole } = setup();
    const read = h.directory.listActivities.bind(h.directory);
    h.directory.listActivities = () => Promise.reject(new CloudApiError('http', 'forbidden', { status: 403 }));
    await summary();
    renameInConsole(DEMO_IDS.searchProd, 'search-main');
    // A summary in the same millisecond as the rename would count it in the next window too (both ends count).
    clock.offsetMs += 1;
    expect(await summary()).toContain(FALLBACK);

    h.directory.listActivities = read;
    renameInConsole(DEMO_IDS.searchProd, 'search-again', 'sam@example.com');
    clock.offsetMs += REFUSED_RECHECK_MS + 1_000;
    const recovered = await summary();
    expect(recovered).toContain('changed in the console by sam@example.com');
    expect(h.logger.lines.some((line) => line.includes('The activity log can be read again'))).toBe(true);

    // Refused again later: said again, once.
    h.directory.listActivities = () => Promise.reject(new CloudApiError('http', 'forbidden', { status: 403 }));
    renameInConsole(DEMO_IDS.searchProd, 'search-third');
    expect(await summary()).toContain(FALLBACK);
    expect(h.logger.lines.filter((line) => line.includes('Drift attribution falls back'))).toHaveLength(2);
  });

  it('says the fallback in the next summary when the one that carried it could not be posted', async () => {
    const { h, summaries, summary, renameInConsole } = setup();
    h.directory.listActivities = () => Promise.reject(new CloudApiError('http', 'forbidden', { status: 403 }));
    await summary();
    renameInConsole(DEMO_IDS.searchProd, 'search-main');
    h.messenger.outside.add(CHANNEL); // Slack refuses the summary that would have said it
    expect((await summaries.post(target)).ok).toBe(false);
    h.messenger.outside.delete(CHANNEL);
    expect(await summary()).toContain(FALLBACK);
    expect(h.logger.lines.filter((line) => line.includes('Drift attribution falls back'))).toHaveLength(1);
  });
});
