/** Waiting for a summary in the Slack stand-in: its headline, then every details message of its thread. */
import type { FakeSlack, SlackCall } from './fake-slack.js';
import { CHANNEL, textOf, type Harness } from './harness.js';

export const AD_HOC = 'ClickHouse Cloud summary';

/** A thread's text with each console link read as its label (`*<url|name>*` → `*name*`). */
const labelsOnly = (text: string) => text.replace(/\*<https:\/\/[^|>]+\/services\/[A-Za-z0-9-]+\|([^>]*)>\*/g, '*$1*');

/**
 * The ts FakeSlack gave a post: it numbers successful chat.postMessage calls 1700000000.000001,
 * .000002... in the order it receives (and records) them, across every channel.
 */
export function tsOf(slack: FakeSlack, call: SlackCall): string {
  const posts = slack.calls.filter(
    (c) => c.method === 'chat.postMessage' && !slack.failingChannels.has(String(c.args.channel)),
  );
  const n = posts.indexOf(call) + 1;
  if (n === 0) throw new Error('not a successful chat.postMessage');
  return `1700000000.${String(n).padStart(6, '0')}`;
}

export const isHeadline = (title: string, channel: string) => (a: Record<string, unknown>) =>
  a.channel === channel && a.thread_ts === undefined && String(a.text).startsWith(`${title}:`);

export const headlines = (slack: FakeSlack, title: string, channel = CHANNEL) =>
  slack.callsOf('chat.postMessage', isHeadline(title, channel));

export function detailCount(headline: SlackCall): number {
  const match = /Details in the thread \(([\d,]+) messages?\)/.exec(textOf(headline.args.blocks));
  return match?.[1] ? Number(match[1].replace(/,/g, '')) : 0;
}

export interface Posted {
  headline: SlackCall;
  ts: string;
  details: SlackCall[];
  /** Every text of the headline's blocks. */
  head: string;
  /** Every text of the thread's blocks, the console links read as their labels. */
  thread: string;
  /** The same with the console links as posted. */
  linked: string;
}

/** Waits for a summary's headline and then for every details message it announces in its thread. */
export async function summaryPosted(
  h: Harness,
  {
    title = AD_HOC,
    channel = CHANNEL,
    after = 0,
    timeoutMs = 10_000,
  }: { title?: string; channel?: string; after?: number; timeoutMs?: number } = {},
): Promise<Posted> {
  const headline = await h.slack.waitFor('chat.postMessage', isHeadline(title, channel), { after, timeoutMs });
  const ts = tsOf(h.slack, headline);
  const count = detailCount(headline);
  const details: SlackCall[] = [];
  for (let i = 1; i <= count; i += 1) {
    const label = `${title} · details ${i} of ${count}`;
    details.push(
      await h.slack.waitFor(
        'chat.postMessage',
        (a) => a.channel === channel && a.thread_ts === ts && a.text === label,
        { after, timeoutMs },
      ),
    );
  }
  return {
    headline,
    ts,
    details,
    head: textOf(headline.args.blocks),
    thread: labelsOnly(details.map((d) => textOf(d.args.blocks)).join('\n')),
    linked: details.map((d) => textOf(d.args.blocks)).join('\n'),
  };
}
