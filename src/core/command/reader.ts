/**
 * What a command's parser reads its arguments with: the shared sentences for a missing service, an
 * extra word, a duration that cannot be read. The parser of every command (parse.ts for reading
 * commands, each kind module of core/change/kinds for the change it asks) gets a reader bound to
 * its own usage line and example, so that every mistake is answered with that command's syntax.
 * It imports no catalogue and no kind: both import it.
 */
import type { ChangeIntent } from '../change/types.js';
import { durationProblem, TEMPORARY_MIN_MS } from '../change/durations.js';
import { echo, type Checked } from './arguments.js';
import { DURATION_FORMS, readSpokenDuration } from './duration.js';
import type { Token } from './tokenize.js';

/** A command as help and usage answers show it. */
export interface CommandSpec {
  /** The words that select the command, lower case: "list", "ip add". */
  name: string;
  usage: string;
  example: string;
  /** One line for the help listing. */
  summary: string;
  /** Its other forms, each an example that works in the demo organization. */
  more?: readonly string[];
  /**
   * What its values may be, for `help COMMAND`: each sentence built from the constants the checks
   * use (never a number written again by hand), so that help and refusals cannot disagree.
   */
  bounds?: readonly string[];
}

/** A change request as a kind's parser reads it (parse.ts adds `at`, `because` and `ticket`). */
export interface ParsedChange {
  service: string;
  intent: ChangeIntent;
  /** The command that asked for the change, as the catalogue names it: "ip add", "rename"... */
  verb: string;
  durationMs?: number;
}

/** A mistake in the command, thrown from deep in a parser and answered as "invalid". */
export class UsageProblem extends Error {
  constructor(
    message: string,
    readonly usage: string,
  ) {
    super(message);
  }
}

export const QUOTE_HINT = 'A service name with spaces goes in quotes, like "orders prod".';
export const QUOTED_DESCRIPTION = 'If those words belong to the description, put the description in quotes.';

export function textOf(tokens: readonly Token[]): string[] {
  return tokens.map((token) => token.text);
}

export class ArgumentReader {
  constructor(readonly spec: CommandSpec) {}

  fail(message: string): never {
    throw new UsageProblem(message, this.spec.usage);
  }

  must<T>(checked: Checked<T>): T {
    if (checked.ok) return checked.value;
    return this.fail(checked.message);
  }

  missing(what: string): never {
    return this.fail(`Tell me ${what}, like this: ${this.spec.example}`);
  }

  /** The first example of the command (its own or one of its other forms) that mentions `word`. */
  exampleAbout(word: string): string {
    const { example, more = [] } = this.spec;
    return [example, ...more].find((text) => text.split(' ').includes(word)) ?? example;
  }

  rejectExtra(extra: readonly Token[], takes: string, hint = QUOTE_HINT): void {
    if (extra.length === 0) return;
    const unexpected = echo(textOf(extra).join(' '));
    this.fail(`${this.spec.name} takes ${takes}, so I don't know what to do with ${unexpected}. ${hint}`.trim());
  }

  /** The SERVICE argument: one word (quoted if it has spaces), a name or an id, resolved later. */
  service(token: Token | undefined, what: string): string {
    if (token === undefined) return this.missing(what);
    const service = token.text.trim();
    if (service === '') this.fail(`The service is empty. Give its name or id, like this: ${this.spec.example}`);
    return service;
  }

  /** An id argument (endpoint, key, schedule): a non-empty word, checked further where it is used. */
  id(token: Token | undefined, what: string): string {
    if (token === undefined) return this.missing(what);
    const id = token.text.trim();
    if (id === '') this.fail(`The id is empty. Write it like this: ${this.spec.example}`);
    return id;
  }

  change(service: string, intent: ChangeIntent, durationMs?: number, verb = this.spec.name): ParsedChange {
    return durationMs === undefined ? { service, intent, verb } : { service, intent, verb, durationMs };
  }

  /**
   * A trailing unquoted `for DURATION` makes a change temporary. The words before it are returned.
   * Words after a `for` that look like a duration but cannot be read are refused with the accepted
   * forms, never taken as a description: "for 2 hours" as a description would grant access for
   * good. A description that must contain such words goes in quotes. `from` is where the optional
   * words start: a service (or source) that happens to be called "for" is no duration.
   */
  splitDuration(args: Token[], from: number): { args: Token[]; durationMs?: number } {
    const fors = args.flatMap((token, at) =>
      at >= from && !token.quoted && token.text.toLowerCase() === 'for' ? [at] : [],
    );
    const last = fors.at(-1);
    if (last === undefined) return { args };
    const tail = textOf(args.slice(last + 1));
    const reading = readSpokenDuration(tail);
    const earlier = fors.slice(0, -1);
    if (reading.kind === 'duration') {
      if (reading.ms < TEMPORARY_MIN_MS) this.fail(durationProblem(reading.ms, Number.MAX_SAFE_INTEGER) ?? '');
      this.refuseDurationLike(args, earlier, last, 'Give one duration, once, at the end.');
      return { args: args.slice(0, last), durationMs: reading.ms };
    }
    // A single word after a trailing `for` has always been read as a duration ("for soon" is refused).
    if (reading.kind === 'unreadable' || tail.length <= 1) {
      const what =
        tail.length === 0
          ? 'The for at the end is not followed by a duration.'
          : `${echo(tail.join(' '))} is not a duration.`;
      this.fail(`${what} ${DURATION_FORMS}. ${QUOTED_DESCRIPTION}`);
    }
    this.refuseDurationLike(args, earlier, args.length, '');
    return { args };
  }

  /** Refuses a `for` among `fors` whose words (up to `end`) look like a duration. */
  private refuseDurationLike(args: Token[], fors: number[], end: number, more: string): void {
    for (const at of fors) {
      const words = textOf(args.slice(at + 1, end));
      if (readSpokenDuration(words).kind === 'other') continue;
      const said = echo(`for ${words.join(' ')}`);
      this.fail(
        `${said} reads like a duration in the middle of the command. ${more} ${DURATION_FORMS}. ${QUOTED_DESCRIPTION}`.replace(
          '  ',
          ' ',
        ),
      );
    }
  }
}
