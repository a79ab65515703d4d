/**
 * The playground in a real browser: Debian's Chromium driven by playwright-core. `.ci/run`
 * installs Chromium when it is missing; locally: `apt-get install chromium`.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { startPlayground, type Playground } from '../../src/playground/playground.js';
import { DEMO_IDS } from '../../src/simulator/seed.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
let browser: Browser;
let playground: Playground | undefined;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium is not installed at ${CHROMIUM}: run apt-get install chromium (or set CHROMIUM_PATH).`);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  await playground?.stop();
  playground = undefined;
});

async function open(): Promise<Page> {
  playground = await startPlayground({ port: 0, logger: createLogger({ level: 'warn', sink: () => undefined }) });
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
const channelMessages = (page: Page) => messages(page).locator(':scope > [data-testid="message"]');

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
    await page.getByTestId('person').selectOption('U0BOB');
    await request.getByRole('button', { name: 'Approve' }).click();
    await request.getByText('1 of 2 approvals').waitFor();
    await page.getByTestId('person').selectOption('U0CAROL');
    await request.getByRole('button', { name: 'Approve' }).click();
    await request.getByText('Applied.').waitFor();

    await page.getByTestId('person').selectOption('U0ALICE');
    await type(page, '/clickhouse ip add sandbox-dev 192.0.2.44 laptop');
    const free = channelMessages(page).filter({ hasText: 'Change request: sandbox-dev' });
    await free.getByText('Applied.').waitFor();
    expect(await free.textContent()).toContain('No approval needed');
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
    expect(await second.getByTestId('thread').textContent()).toMatch(/elsewhere/);
  });
});
