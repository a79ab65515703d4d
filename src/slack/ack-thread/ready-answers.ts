/**
 * Answers the acknowledging thread may give again by itself. A slash command whose answer the
 * main thread has just given, from data that stays the same for a while (`list` within the Cloud
 * API cache window), is offered to the thread; the same command typed in the same channel (in any
 * channel, when every channel sees the same list) is then answered in its acknowledgement, as
 * Slack allows, without waking the main thread or posting to the response_url. That is what a flood of `list` during an incident costs most: the hand-over and
 * the second HTTP exchange, not the answer.
 *
 * An offer is good until its time, and only while nothing it was derived from has changed: a
 * generation in shared memory, which the main thread moves on (`outdate`) whenever a cached read
 * changes, the organizations are reloaded or the bot drains, and which the thread reads for each
 * request. An offer carries the generation read before its data was read, so an answer built from
 * data that changed meanwhile is never given again. No message has to reach the thread first.
 */
import { createHash } from 'node:crypto';
import { EVERY_CHANNEL, readyAnswerKey } from './ready-answer-key.js';

export interface ReadyAnswerKey {
  teamId: string;
  channelId: string;
  command: string;
  text: string;
}

/**
 * Offers one command's answer: the acknowledgement's JSON, until when (epoch ms), and whether it
 * holds in every channel of the workspace (else in the command's channel only).
 */
export type OfferAgain = (body: string, until: number, everyChannel: boolean) => void;

/** What the thread keeps: the acknowledgement's JSON, its label for the metrics, and its limits. */
export interface ReadyAnswerOffer {
  key: string;
  /** The acknowledgement's body, JSON (`response_type`, `text`, `blocks`). */
  body: string;
  /** Epoch ms after which it is not given again. */
  until: number;
  generation: number;
  /** The command's label in clickhouse_bot_commands_total. */
  label: string;
}

/** Keys remembered for `askedBefore` at most; past it they are forgotten all at once. */
const ASKED_REMEMBERED = 4_096;

export class ReadyAnswers {
  /** One Int32: the generation. Shared with every acknowledging thread the receiver starts. */
  readonly shared = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT);
  private readonly generationCell = new Int32Array(this.shared);
  private deliver: ((offer: ReadyAnswerOffer) => void) | undefined;

  /** The receiver's way to the thread; without one (Socket Mode) offers are dropped. */
  attach(deliver: (offer: ReadyAnswerOffer) => void): void {
    this.deliver = deliver;
  }

  generation(): number {
    return Atomics.load(this.generationCell, 0);
  }

  /** Something an offered answer may have been derived from changed: none is given again. */
  outdate(): void {
    Atomics.add(this.generationCell, 0, 1);
  }

  /**
   * Whether the same command (same key) already reached the main thread since the last
   * `outdate`; remembers this one. Only a command that repeats is worth offering: an offer costs
   * the thread a wake-up and a place among the answers it keeps, which one-off commands (a new
   * channel's first `list`) would take from the ones a team repeats.
   */
  askedBefore(key: ReadyAnswerKey): boolean {
    // Counted across channels: whether an answer holds in one channel or in all is known only
    // once the command has run. A digest, not the key: a command's text is the person's, up to
    // tens of kilobytes each.
    const anyChannel = readyAnswerKey({ ...key, channelId: EVERY_CHANNEL });
    const spelled = createHash('sha256').update(anyChannel).digest('base64');
    const generation = this.generation();
    const before = this.asked.get(spelled) === generation;
    if (!before) {
      if (this.asked.size >= ASKED_REMEMBERED) this.asked.clear();
      this.asked.set(spelled, generation);
    }
    return before;
  }

  /** Commands that reached the main thread, by their key's digest, with the generation they came in. */
  private readonly asked = new Map<string, number>();

  /**
   * A way for one command to offer its answer, bound to the generation of now: call it before
   * the command reads anything its answer shows.
   */
  offerFor(key: ReadyAnswerKey, label: string): OfferAgain | undefined {
    const deliver = this.deliver;
    if (!deliver) return undefined;
    const generation = this.generation();
    return (body, until, everyChannel) => {
      if (until <= Date.now() || generation !== this.generation()) return;
      const spelled = readyAnswerKey(everyChannel ? { ...key, channelId: EVERY_CHANNEL } : key);
      deliver({ key: spelled, body, until, generation, label });
    };
  }
}
