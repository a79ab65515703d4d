/**
 * The playground in a real browser: Debian's Chromium driven by playwright-core. `.ci/run`
 * installs Chromium when it is missing; locally: `apt-get install chromium`.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { networkInterfaces } from 'node:os';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { startPlayground, type Playground, type PlaygroundOptions } from '../../src/playground/playground.js';
import { DEMO_IDS } from '../../src/simulator/seed.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
let browser: Browser;
let playground: Playground | undefined;

beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(`Chromium is not installed at ${CHROMIUM}: run apt-get install chromium (or set CHROMIUM_PATH).`);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
});
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  await playground?.stop();
  playground = undefined;
});

async function open(options: Pick<PlaygroundOptions, 'clock' | 'temporaryTickMs' | 'nudgeTickMs'> = {}): Promise<Page> {
  playground = await startPlayground({
    port: 0,
    logger: createLogger({ level: 'warn', sink: () => undefined }),
    ...options,
  });
  const page = await browser.newPage();
  await page.goto(`${playground.url}/`);
  await expect.poll(() => page.getByTestId('person').locator('option').count()).toBe(4);
  return page;
}

async function type(page: Page, command: string): Promise<void> {
  await page.getByTestId('command').fill(command);
  await page.getByTestId('command').press('Enter');
}

const messages = (page: Page) => page.getByTestId('messages');
/** Messages in the channel itself, not replies inside threads. */
/** The direct messages the app shows the person. */
const directMessages = (page: Page) => messages(page).locator(':scope > [data-testid="message"][data-direct]');

/** The channel's own messages: not the direct messages the app shows the person beside them. */
const channelMessages = (page: Page) => messages(page).locator(':scope > [data-testid="message"]:not([data-direct])');

describe('the playground page', () => {
  it('lists the services privately to the person who asked', async () => {
    const page = await open();
    await type(page, '/clickhouse list');
    const reply = channelMessages(page).filter({ hasText: 'ClickHouse Cloud services (12)' });
    await reply.waitFor();
    await expect.poll(() => reply.textContent()).toContain('Only visible to you');
    expect(await reply.textContent()).toContain('open to the internet');
    await page.getByTestId('person').selectOption('U0BOB');
    await expect.poll(() => messages(page).textContent()).not.toContain('ClickHouse Cloud services (12)');
  });

  it('runs a whole change request: asked by Alice, refused to Dave, approved by Bob, visible in the simulator', async () => {
    const page = await open();
    await type(page, '/clickhouse rename ml-dev ml development');
    const request = channelMessages(page).filter({ hasText: 'Change request: ml-dev' });
    await request.waitFor();
    await page.getByTestId('person').selectOption('U0DAVE');
    await request.getByRole('button', { name: 'Approve' }).click();
    await messages(page).getByText('not on this bot').waitFor();
    await page.getByTestId('person').selectOption('U0BOB');
    await request.getByRole('button', { name: 'Approve' }).click();
    await request.getByText('Applied.').waitFor();
    await page.locator(`[data-service="${DEMO_IDS.mlDev}"]`).getByText('ml development').waitFor();
    expect(await request.getByRole('button', { name: 'Approve' }).count()).toBe(0);
  });

  it('runs the demo policy: production needs Bob and Carol, dev IP adds need nobody', async () => {
    const page = await open();
    await type(page, '/clickhouse release-channel orders-prod fast');
    const request = channelMessages(page).filter({ hasText: 'Change request: orders-prod' });
    await request.getByText('production needs Bob and Carol').waitFor();
    await approveAsBobThenCarol(page, request);

    await page.getByTestId('person').selectOption('U0ALICE');
    await type(page, '/clickhouse ip add sandbox-dev 192.0.2.44 laptop');
    const free = channelMessages(page).filter({ hasText: 'Change request: sandbox-dev' });
    await free.getByText('Applied.').waitFor();
    expect(await free.textContent()).toContain('No approval needed');
  });

  it('asks Bob why he rejects, shows it on the request, and tells Alice in a DM only she sees', async () => {
    const page = await open();
    await type(page, '/clickhouse rename ml-dev ml-old');
    const request = channelMessages(page).filter({ hasText: 'Change request: ml-dev' });
    await request.waitFor();
    await page.getByTestId('person').selectOption('U0BOB');
    await request.getByRole('button', { name: 'Reject' }).click();
    const modal = page.getByTestId('modal');
    await modal.getByLabel('Reason').fill('keep the old name for now');
    await modal.getByRole('button', { name: 'Reject' }).click();
    await modal.waitFor({ state: 'detached' });
    await request.getByText('“keep the old name for now”').waitFor();
    // Alice's news is hers alone: Bob (who sees his own approver DM) does not see it.
    expect(await messages(page).textContent()).not.toContain('was rejected by');
    await page.getByTestId('person').selectOption('U0ALICE');
    const told = directMessages(page).filter({ hasText: 'was rejected by' });
    await told.waitFor();
    expect(await told.textContent()).toContain('Direct message to you');
    expect(await told.textContent()).toContain('“keep the old name for now”');
  });

  it('shows an invalid modal input inline and keeps the modal open', async () => {
    const page = await open();
    await type(page, '/clickhouse edit orders-prod');
    const modal = page.getByTestId('modal');
    await modal.waitFor();
    await modal.getByLabel('IP access entries to add').fill('10.0.0.0/33 bad mask');
    await modal.getByRole('button', { name: 'Request change' }).click();
    await modal.getByTestId('field-error').filter({ hasText: '10.0.0.0/33' }).waitFor();
    expect(await modal.isVisible()).toBe(true);
    await modal.getByLabel('IP access entries to add').fill('192.0.2.0/24 lab');
    await modal.getByRole('button', { name: 'Request change' }).click();
    await modal.waitFor({ state: 'detached' });
    await messages(page).getByText('Change request: orders-prod').waitFor();
  });

  it('takes Apply at from the edit form: a past time is refused under it, a future one is in the request', async () => {
    const page = await open();
    await type(page, '/clickhouse edit orders-prod');
    const modal = page.getByTestId('modal');
    await modal.waitFor();
    await modal.getByLabel('IP access entries to add').fill('192.0.2.0/24 lab');
    await modal.getByLabel('Apply at').fill('2026-01-01T09:00');
    await modal.getByRole('button', { name: 'Request change' }).click();
    await modal.getByTestId('field-error').filter({ hasText: 'has passed. Pick a time in the future' }).waitFor();
    // Two days ahead, in the browser's zone as the page reads it.
    const ahead = new Date(Date.now() + 2 * 24 * 3600_000);
    const local = new Date(ahead.getTime() - ahead.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
    await modal.getByLabel('Apply at').fill(local);
    await modal.getByRole('button', { name: 'Request change' }).click();
    await modal.waitFor({ state: 'detached' });
    const request = channelMessages(page).filter({ hasText: 'Change request: orders-prod' });
    await request.waitFor();
    expect(await request.textContent()).toContain('applies at');
  });

  it('posts a summary with its details in a thread, and shows drift made outside the bot', async () => {
    const page = await open();
    await type(page, '/clickhouse summary');
    const first = channelMessages(page).filter({ hasText: 'ClickHouse Cloud summary' }).first();
    await first.waitFor();
    await first.getByTestId('thread-toggle').click();
    await first.getByTestId('thread').getByText('events-prod').first().waitFor();
    expect(await first.getByTestId('thread').textContent()).toContain('0.0.0.0/0');

    await page.locator('#outside-service').selectOption(DEMO_IDS.sandboxDev);
    await page.locator('#outside-name').fill('sandbox renamed');
    await page.getByRole('button', { name: 'Change outside the bot' }).click();
    await page.locator(`[data-service="${DEMO_IDS.sandboxDev}"]`).getByText('sandbox renamed').waitFor();
    await type(page, '/clickhouse summary');
    const second = channelMessages(page).filter({ hasText: 'ClickHouse Cloud summary' }).nth(1);
    await second.waitFor();
    await second.getByTestId('thread-toggle').click();
    await second.getByTestId('thread').getByText('sandbox renamed').first().waitFor();
    expect(await second.getByTestId('thread').textContent()).toContain(
      'changed in the console by console.user@example.com',
    );
  });

  it('shows the spend report and, in its thread, the chart with its text alternative', async () => {
    const page = await open();
    await type(page, '/clickhouse cost');
    const report = channelMessages(page).filter({ hasText: 'Spend of the organization, last 7 days' });
    await report.waitFor();
    await report.getByTestId('thread-toggle').click();
    const chart = report.getByTestId('thread').locator('[data-testid="file"] img');
    await chart.waitFor();
    expect(await chart.getAttribute('alt')).toMatch(
      /^Daily spend of the organization \(CHC\), .* total [\d,.]+ CHC\.$/,
    );
    await expect.poll(() => chart.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(900);
  });

  it('shows a temporary grant and, when its time is up, its revert in the thread', async () => {
    let offset = 0;
    const page = await open({ clock: () => Date.now() + offset, temporaryTickMs: 100 });
    await type(page, '/clickhouse ip add orders-prod 192.0.2.99 load test for 1m');
    const request = channelMessages(page).filter({ hasText: 'Change request: orders-prod' });
    await request.waitFor();
    expect(await request.textContent()).toContain('Temporary: for 1m');
    // The demo policy: production needs Bob and Carol; the revert needs nobody.
    await approveAsBobThenCarol(page, request);
    // The side panel counts the IP entries of each service: orders-prod has two, plus the grant.
    const ipCount = page.locator(`[data-service="${DEMO_IDS.ordersProd}"] td`).nth(3);
    await expect.poll(() => ipCount.textContent()).toBe('3');
    await request.getByTestId('thread-toggle').click();
    await request.getByTestId('thread').getByText('without approval').first().waitFor();

    offset += 61_000;
    await request.getByTestId('thread').getByText('Revert of the temporary change').waitFor();
    await request.getByTestId('thread').getByText('Applied.').waitFor();
    await expect.poll(() => ipCount.textContent()).toBe('2');
    expect(
      playground?.bot.simulator?.service(DEMO_IDS.ordersProd)?.ipAccessList?.some((e) => e.source === '192.0.2.99'),
    ).toBe(false);
    // Several paced posts and page refreshes: slower than the other page tests under load.
  }, 60_000);
});

describe('threads in the playground', () => {
  it('keeps a stop as one card, updated in place to where the service ended up, its record in the thread', async () => {
    const page = await open();
    await type(page, '/clickhouse stop events-staging');
    const request = channelMessages(page).filter({ hasText: 'Change request: events-staging' });
    await request.waitFor();
    await page.getByTestId('person').selectOption('U0BOB');
    await request.getByRole('button', { name: 'Approve' }).click();
    await request.getByText('Applied.').waitFor();
    // The card's last word is where the service is, not "stopping".
    await request.getByText(/events-staging.*is stopped, \d+ s after the API accepted/).waitFor();
    // Nothing about the change at the top level but its card: the record is a reply.
    expect(await channelMessages(page).filter({ hasText: 'after change' }).count()).toBe(0);
    expect(await channelMessages(page).filter({ hasText: 'Change request: events-staging' }).count()).toBe(1);
    await request.getByTestId('thread-toggle').click();
    const thread = request.getByTestId('thread');
    await thread.getByText('after change').waitFor();
    await thread.getByText(/is stopped, \d+ s after/).waitFor();
    await expect
      .poll(() => page.locator(`[data-service="${DEMO_IDS.eventsStaging}"] td`).nth(1).textContent())
      .toBe('stopped');
    // The follow reads the service a first time 2 s after the API accepted, then posts paced.
  }, 30_000);

  it("sends Bob a reminder DM whose link opens the request and whose Approve counts as the channel's", async () => {
    let offset = 0;
    const page = await open({ clock: () => Date.now() + offset, nudgeTickMs: 100 });
    await type(page, '/clickhouse release-channel orders-prod fast');
    const request = channelMessages(page).filter({ hasText: 'Change request: orders-prod' });
    await request.waitFor();
    await page.getByTestId('person').selectOption('U0BOB');
    offset += 31 * 60_000;
    const reminder = directMessages(page).filter({ hasText: 'still waits' });
    await reminder.waitFor();
    expect(await reminder.textContent()).toMatch(/orders-prod.*Release channel/);
    await reminder.getByTestId('permalink').click();
    await expect.poll(() => request.getAttribute('class')).toContain('highlight');
    await reminder.getByRole('button', { name: 'Approve' }).click();
    await request.getByText('1 of 2 approvals').waitFor();
  }, 30_000);
});

describe('the Home tab in the playground', () => {
  it("shows each person's Home, with buttons that work, redrawn as the request moves", async () => {
    const page = await open();
    const home = page.getByTestId('home');
    await home.getByText('Waiting for you (0)').waitFor();
    await type(page, '/clickhouse release-channel orders-prod fast');
    await channelMessages(page).filter({ hasText: 'Change request: orders-prod' }).waitFor();
    await home.getByText('Your requests (1 open)').waitFor();
    for (const approver of ['U0BOB', 'U0CAROL']) {
      await page.getByTestId('person').selectOption(approver);
      await home.getByText('Waiting for you (1)').waitFor();
      await home.getByRole('button', { name: 'Approve' }).click();
      await home.getByText('Waiting for you (0)').waitFor();
    }
    await page.getByTestId('person').selectOption('U0ALICE');
    await home.getByText('Your requests (0 open)').waitFor();
    await expect.poll(() => home.textContent()).toContain('applied');
    await page.getByTestId('person').selectOption('U0DAVE');
    await home.getByText('Nothing is waiting for your approval.').waitFor();
  });
});

describe('first-run rough edges of the playground', () => {
  it('keeps what was typed in the modal when it shows inline errors, as Slack does', async () => {
    const page = await open();
    await type(page, '/clickhouse edit orders-prod');
    const modal = page.getByTestId('modal');
    await modal.waitFor();
    await modal.getByLabel('Name').fill('orders renamed');
    await modal.getByLabel('IP access entries to add').fill('10.0.0.0/33 bad mask');
    await modal.getByLabel('Tags').fill('env=prod team=data owner=ana');
    await modal.getByRole('button', { name: 'Request change' }).click();
    await modal.getByTestId('field-error').filter({ hasText: '10.0.0.0/33' }).waitFor();
    expect(await modal.getByLabel('Name').inputValue()).toBe('orders renamed');
    expect(await modal.getByLabel('IP access entries to add').inputValue()).toBe('10.0.0.0/33 bad mask');
    expect(await modal.getByLabel('Tags').inputValue()).toBe('env=prod team=data owner=ana');
  });

  it('shows *, _ and ~ literally in a typed command and inside code spans', async () => {
    const page = await open();
    // Every 30 minutes: within the default SCHEDULE_MIN_INTERVAL_SECONDS (15 minutes).
    await type(page, '/clickhouse schedule add "*/30 * * * *" tag:env=prod');
    const typed = messages(page).locator('.typed').filter({ hasText: 'schedule add' });
    await typed.waitFor();
    expect(await typed.textContent()).toBe('/clickhouse schedule add "*/30 * * * *" tag:env=prod');
    const reply = channelMessages(page).filter({ hasText: 'Next runs' });
    await reply.waitFor();
    expect(await reply.locator('code').filter({ hasText: '*/30 * * * *' }).count()).toBeGreaterThan(0);
    expect(await reply.locator('strong').filter({ hasText: '/30' }).count()).toBe(0);
    expect(
      await page
        .locator('strong, em, del')
        .filter({ hasText: /\/30|\* \*/ })
        .count(),
    ).toBe(0);
  });

  it('does not keep live-update listeners of pages that were reloaded', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      const page = await open();
      const slack = playground?.slack;
      if (slack === undefined) throw new Error('no playground');
      await expect.poll(() => slack.listenerCount('change')).toBe(1);
      // A dozen reloads: more than the 10 listeners Node warns about.
      for (let i = 0; i < 12; i += 1) {
        await page.reload();
        await expect.poll(() => page.getByTestId('person').locator('option').count()).toBe(4);
      }
      await expect.poll(() => slack.listenerCount('change')).toBe(1);
      expect(warnings).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
    }
  }, 90_000);

  it('replaces a stale modal with the new one', async () => {
    const page = await open();
    const command = (text: string) =>
      page.evaluate(
        (body) =>
          fetch('/ui/command', { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then(
            (r) => r.status,
          ),
        JSON.stringify({ userId: 'U0ALICE', text }),
      );
    expect(await command('edit orders-prod')).toBe(200);
    await page.getByTestId('modal').getByText(DEMO_IDS.ordersProd).waitFor();
    expect(await command('edit sandbox-dev')).toBe(200);
    await page.getByTestId('modal').getByText(DEMO_IDS.sandboxDev).waitFor();
    expect([...(playground?.slack.views.values() ?? [])].map((v) => v.userId)).toStrictEqual(['U0ALICE']);
  });

  it('validates a change outside the bot like the API does', async () => {
    const page = await open();
    const row = page.locator(`[data-service="${DEMO_IDS.sandboxDev}"]`);
    const entries = async () => row.locator('td').nth(3).textContent();
    const before = await entries();
    await page.locator('#outside-service').selectOption(DEMO_IDS.sandboxDev);
    await page.locator('#outside-ip').fill('not-an-ip');
    await page.getByRole('button', { name: 'Change outside the bot' }).click();
    await page
      .getByTestId('outside-status')
      .getByText('The API would refuse this: request body.ipAccessList.add[0].source')
      .waitFor();
    await page.locator('#outside-ip').fill('');
    await page.locator('#outside-name').fill('n'.repeat(51));
    await page.getByRole('button', { name: 'Change outside the bot' }).click();
    await page.getByTestId('outside-status').getByText('request body.name').waitFor();
    expect(await entries()).toBe(before);
    expect(playground?.bot.simulator?.service(DEMO_IDS.sandboxDev)?.name).toBe('sandbox-dev');
    await page.locator('#outside-name').fill('');
    await page.locator('#outside-ip').fill('192.0.2.9/32');
    await page.getByRole('button', { name: 'Change outside the bot' }).click();
    await page.getByTestId('outside-status').getByText('Changed.').waitFor();
    await expect.poll(entries).toBe(String(Number(before) + 1));
  });

  it('keeps the services table readable in a 760 px window', async () => {
    const page = await open();
    await page.setViewportSize({ width: 760, height: 900 });
    await page.locator(`[data-service="${DEMO_IDS.ordersProdReadonly}"]`).waitFor();
    const layout = await page.evaluate(() => {
      const table = document.querySelector('[data-testid="services"]');
      const cells = [...document.querySelectorAll('#services td, [data-testid="services"] th')];
      return {
        tableRight: table?.getBoundingClientRect().right ?? Infinity,
        pageWidth: document.documentElement.scrollWidth,
        clipped: cells.filter((cell) => cell.scrollWidth > cell.clientWidth + 1).map((cell) => cell.textContent),
        narrowest: Math.min(...cells.map((cell) => cell.getBoundingClientRect().width)),
      };
    });
    expect(layout.pageWidth).toBeLessThanOrEqual(760);
    expect(layout.tableRight).toBeLessThanOrEqual(760);
    expect(layout.clipped).toStrictEqual([]);
    expect(layout.narrowest).toBeGreaterThan(40);
  });
});

describe('the playground process', () => {
  const ROOT = fileURLToPath(new URL('../..', import.meta.url));
  /** `npm run playground` as a child process; resolves with its exit code and output. */
  function runPlayground(port: string): Promise<{ code: number | null; stderr: string }> {
    return new Promise((resolve) => {
      const env = { ...process.env, PORT: port, NODE_ENV: 'development', REDIS_URL: '' };
      execFile(
        process.execPath,
        ['--import', 'tsx', 'src/playground/main.ts'],
        { cwd: ROOT, env, timeout: 30_000 },
        (error, _stdout, stderr) => {
          resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stderr });
        },
      );
    });
  }

  it('answers a busy port with one sentence, not a stack', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const address = busy.address();
    const port = address !== null && typeof address === 'object' ? address.port : 0;
    try {
      const { code, stderr } = await runPlayground(String(port));
      expect(code).toBe(1);
      expect(stderr.trim()).toBe(
        `The playground could not start: Port ${port} on 127.0.0.1 is already in use: stop what uses it, or choose another port with PORT=${port + 1}.`,
      );
    } finally {
      await new Promise<void>((resolve) => busy.close(() => resolve()));
    }
  }, 60_000);

  it.each(['abc', '70000'])(
    'answers PORT=%s with one sentence',
    async (port) => {
      const { code, stderr } = await runPlayground(port);
      expect(code).toBe(1);
      expect(stderr.trim()).toBe(
        `The playground could not start: PORT must be a whole number from 0 to 65535, not "${port}".`,
      );
    },
    60_000,
  );

  it('runs the embedded bot on loopback only', async () => {
    playground = await startPlayground({ port: 0, logger: createLogger({ level: 'warn', sink: () => undefined }) });
    const port = playground.bot.port;
    const reach = (host: string) =>
      new Promise<string>((resolve) => {
        const socket = connect({ host, port });
        socket.once('connect', () => {
          socket.destroy();
          resolve('connected');
        });
        socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
      });
    expect(await reach('127.0.0.1')).toBe('connected');
    const outside = Object.values(networkInterfaces())
      .flat()
      .find((i) => i !== undefined && !i.internal && i.family === 'IPv4');
    if (outside === undefined) throw new Error('this machine has no non-loopback IPv4 address to test from');
    expect(await reach(outside.address)).toBe('ECONNREFUSED');
  });
});

/** The demo policy's production rule: Bob approves (1 of 2), then Carol, and the change applies. */
async function approveAsBobThenCarol(page: Page, request: Locator): Promise<void> {
  await page.getByTestId('person').selectOption('U0BOB');
  await request.getByRole('button', { name: 'Approve' }).click();
  await request.getByText('1 of 2 approvals').waitFor();
  await page.getByTestId('person').selectOption('U0CAROL');
  await request.getByRole('button', { name: 'Approve' }).click();
  await request.getByText('Applied.').waitFor();
}
