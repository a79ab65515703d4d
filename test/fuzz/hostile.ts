/**
 * Seeded generators of hostile input and the one check every rendered text must pass. A failure
 * names the seed and the input, so it can be replayed exactly.
 */

import type { Rng } from '../support/random.js';

export { prng, type Rng } from '../support/random.js';

/** Slack's control sequences and mrkdwn, as data could carry them (and as Slack sends them). */
export const INJECTIONS = [
  '<!channel>',
  '<!here>',
  '<!everyone>',
  '<!channel|@channel>',
  '<!subteam^S0TEAM|@oncall>',
  '<!date^1^smuggled|smuggled>',
  '<@U123>',
  '<@U0ATTACKER>',
  '<@W999|bob>',
  '<#C123|general>',
  '<http://x|y>',
  '<https://evil.example/login|Click here to re-authenticate>',
  '<mailto:a@evil.example|mail>',
  '<tel:+15551234>',
  '<http://x>',
  '<javascript:alert(1)|x>',
  '@channel',
  '@here',
  '@everyone',
  '@Channel',
  '@HERE',
  '&amp;',
  '&lt;',
  '&gt;',
  '&lt;!channel&gt;',
  '&',
  '<',
  '>',
  '<<',
  '>>',
  '|',
  '<>',
  '<|>',
  '`',
  '```',
  '``',
  '*',
  '**',
  '_',
  '~',
  '> quoted',
  ':warning:',
  ':white_check_mark:',
];
export const QUOTES = ['"', "'", '“', '”', '„', '‘', '’', '‚', '«', '»', '"a b"', '“a b”', "'a b'"];
export const UNICODE = [
  '🚀',
  '👨‍👩‍👧',
  '🇩🇪',
  '🏳️‍🌈',
  'שלום',
  'مرحبا',
  '\u202Egnp.exe',
  '\u200E',
  '\u200F',
  '\u200B',
  '\u200C',
  '\u200D',
  '\uFEFF',
  'e\u0301',
  '数据库',
  'Ünïcödé',
  'ß',
  'İ',
  '\u00A0',
  '\u2028',
  '\u2029',
  '\u3000',
  '\u0000',
  '\u0007',
  '\u001b[31m',
  '\uD800',
  '\uDC00',
  '𝕏',
];
export const WORDS = [
  'list',
  'show',
  'edit',
  'rename',
  'ip',
  'add',
  'remove',
  'endpoint',
  'mysql',
  'on',
  'off',
  'release-channel',
  'slow',
  'default',
  'fast',
  'private-endpoint',
  'attach',
  'detach',
  'rotate-key',
  'pending',
  'history',
  'summary',
  'schedule',
  'help',
  'tag:env=prod',
  'tag:team',
  'tag:',
  'tz:Europe/Berlin',
  'orders-prod',
  'sandbox-dev',
  'billing-prod',
  '0.0.0.0/0',
  '10.0.0.0/8',
  '203.0.113.7',
  '::1',
  '2001:db8::/32',
  '300.1.1.1',
  '10.0.0.0/33',
  'vpce-0a1b2c3d4e5f67890',
  'key-1',
  'constructor',
  '__proto__',
  'toString',
  'hasOwnProperty',
  'null',
  'undefined',
  'NaN',
  '-1',
  '1e309',
  'CR-0000000001',
  'sch-abcdef',
  '"0 9 * * 1-5"',
  '@daily',
];
export const SPACES = [' ', '  ', '\t', '\n', '\r\n', '\u00A0', ' \n '];

/** One hostile string: usually a handful of fragments, sometimes huge (up to `maxLength`), sometimes random code points. */
export function hostileString(rng: Rng, maxLength = 20_000): string {
  const roll = rng.next();
  if (roll < 0.04) return '';
  if (roll < 0.1) {
    const target = 1_000 + rng.int(Math.max(1, maxLength - 1_000));
    const unit = fragments(rng, 1 + rng.int(4));
    return unit.repeat(Math.ceil(target / Math.max(1, unit.length))).slice(0, target);
  }
  if (roll < 0.18) {
    return Array.from({ length: 1 + rng.int(40) }, () => {
      const point = rng.chance(0.8) ? rng.int(0x3000) : 0x1f000 + rng.int(0x1000);
      return String.fromCodePoint(point);
    }).join('');
  }
  return fragments(rng, 1 + rng.int(12));
}

function fragments(rng: Rng, count: number): string {
  const pools = [INJECTIONS, INJECTIONS, QUOTES, UNICODE, WORDS, WORDS, SPACES];
  return Array.from({ length: count }, () => rng.pick(rng.pick(pools))).join(rng.chance(0.5) ? '' : ' ');
}

/** The bot's own date tokens; a smuggled one (from the data above) is not the bot's. */
const BOT_DATE = /<!date\^\d+\^[^|>]*\|[^<>]*>/g;
/**
 * A bot date or mention cut short by truncation of a long line (packLines/truncate cut after
 * formatting, so the closing ">" is lost). Shows as literal text and pings nothing; a known
 * cosmetic defect, told apart from smuggled data by what precedes the "…".
 */
const CUT_TOKEN = /<([^<>]*)…/g;

function isCutBotToken(body: string, allowedUsers: readonly string[]): boolean {
  if (body.includes('smuggled')) return false;
  if (body.startsWith('!date^')) return /^!date\^\d*(\^[^|]*(\|.*)?)?$/s.test(body);
  return '!date^'.startsWith(body) || allowedUsers.some((user) => `@${user}`.startsWith(body));
}

/**
 * What in one text Slack would treat as a control sequence the data smuggled in: any raw "<"
 * (it opens `<!…>`, `<@…>`, `<#…>`, `<http…>`, `<mailto…>`) or ">" other than the bot's own
 * dates, console links and mentions of `allowedUsers`, and any bare @channel, @here or @everyone (which Slack
 * would link if a message were ever posted with link_names).
 */
/**
 * The bot's own link to a service's console page (CONSOLE_URL, ClickHouse Cloud's by default): its
 * URL built from a checked id, its label escaped data, so no `<` or `>` inside.
 */
const CONSOLE_LINK = /<https:\/\/console\.clickhouse\.cloud\/services\/[A-Za-z0-9-]{1,64}\|[^<>]*>/g;

export function leaks(text: string, allowedUsers: readonly string[] = []): string[] {
  let rest = text
    .replace(BOT_DATE, (date) => (date.includes('smuggled') ? date : ''))
    .replace(CONSOLE_LINK, '')
    .replace(CUT_TOKEN, (cut, body: string) => (isCutBotToken(body, allowedUsers) ? '…' : cut));
  for (const user of allowedUsers) rest = rest.split(`<@${user}>`).join('');
  const found: string[] = [];
  const control = /<(!|@|#|https?:|mailto:|tel:|javascript:)?[^<>]{0,40}/i.exec(rest);
  if (control) found.push(`raw control sequence ${JSON.stringify(control[0])}`);
  if (rest.includes('>'))
    found.push(
      `raw ">" near ${JSON.stringify(rest.slice(Math.max(0, rest.indexOf('>') - 30), rest.indexOf('>') + 10))}`,
    );
  // "@here_x" is not a mass mention and esc leaves it; a truncation right after "@here" (then "…") is no ping either.
  const mass = /@(channel|here|everyone)(?![\w…])/i.exec(rest);
  if (mass) found.push(`bare mass mention ${mass[0]}`);
  return found;
}

/** Every string a reader sees in mrkdwn (section text and fields, mrkdwn context elements). */
export function mrkdwnOf(blocks: readonly unknown[]): string[] {
  const texts: string[] = [];
  const isRecord = (value: unknown): value is Record<string, unknown> =>
    typeof value === 'object' && value !== null && !Array.isArray(value);
  const take = (value: unknown) => {
    if (isRecord(value) && value.type === 'mrkdwn' && typeof value.text === 'string') texts.push(value.text);
  };
  for (const block of blocks) {
    if (!isRecord(block)) continue;
    take(block.text);
    if (Array.isArray(block.fields)) block.fields.forEach(take);
    if (block.type === 'context' && Array.isArray(block.elements)) block.elements.forEach(take);
  }
  return texts;
}

/** Short, printable form of an input for failure messages. */
export function shown(text: string, max = 160): string {
  const json = JSON.stringify(text);
  return json.length > max ? `${json.slice(0, max)}… (${text.length} chars)` : json;
}
