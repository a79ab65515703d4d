/**
 * The DURATION of `… for DURATION`, as people write it: "2h", "90m", "3d", "2hrs", "90 minutes",
 * "1 day", "two hours", "an hour", "1h 30m", "1 hour and 30 minutes", "1.5 hours", "1 week".
 * Words after `for` that look like a duration but cannot be read ("2 fortnights", "a while", "30
 * seconds") are reported as such, so that the parser refuses them instead of taking them as a
 * description and granting access for good.
 */

const MINUTE_MS = 60_000;

const UNIT_MS: ReadonlyMap<string, number> = new Map(
  (
    [
      [MINUTE_MS, ['m', 'min', 'mins', 'minute', 'minutes']],
      [60 * MINUTE_MS, ['h', 'hr', 'hrs', 'hour', 'hours']],
      [24 * 60 * MINUTE_MS, ['d', 'day', 'days']],
      [7 * 24 * 60 * MINUTE_MS, ['w', 'wk', 'wks', 'week', 'weeks']],
    ] as const
  ).flatMap(([ms, words]) => words.map((word) => [word, ms] as const)),
);

/** Words about time that are not units we read: their presence still means "a duration was meant". */
const TIME_WORDS = new Set([
  's',
  'sec',
  'secs',
  'second',
  'seconds',
  'month',
  'months',
  'year',
  'years',
  'fortnight',
  'fortnights',
  'while',
  'today',
  'tonight',
  'tomorrow',
  'weekend',
  'morning',
  'afternoon',
  'evening',
  'night',
  'ever',
  'good',
  'now',
]);

const ONES = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
];
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
const NUMBER_WORDS: ReadonlyMap<string, number> = new Map([
  ...ONES.map((word, n) => [word, n] as const),
  ...TENS.flatMap((word, n) => (word === '' ? [] : [[word, n * 10] as const])),
  ['a', 1],
  ['an', 1],
]);

/** The accepted forms, for the sentence that refuses anything else. */
export const DURATION_FORMS =
  'Write the duration after for as minutes, hours, days or weeks: for 30m, for 2h, for 3d ' +
  '(for 90 minutes, for 2 hours, for 1 day, for two hours and for 1h 30m work too)';

export type SpokenDuration =
  /** The words are a duration. */
  | { kind: 'duration'; ms: number }
  /** The words look like a duration (a number first, or a word about time) but cannot be read. */
  | { kind: 'unreadable' }
  /** Nothing about the words suggests a duration. */
  | { kind: 'other' };

/**
 * Lower case, hyphens and commas as spaces, "and" dropped, and every word split where digits and
 * letters meet ("2hrs" → "2", "hrs"; "1h30m" → "1", "h", "30", "m").
 */
function piecesOf(words: readonly string[]): string[] {
  return words
    .join(' ')
    .toLowerCase()
    .replace(/[-,;]/g, ' ')
    .split(/\s+/u)
    .filter((word) => word !== '' && word !== 'and')
    .flatMap((word) => word.match(/\d+(?:\.\d+)?|[^\d\s]+/gu) ?? []);
}

const isDigits = (piece: string) => /^\d/.test(piece);

/** A number at `at` (digits or words such as "twenty four"): its value and how many pieces it took. */
function numberAt(pieces: readonly string[], at: number): { value: number; length: number } | undefined {
  const piece = pieces[at];
  if (piece === undefined) return undefined;
  if (isDigits(piece)) return { value: Number(piece), length: 1 };
  const value = NUMBER_WORDS.get(piece);
  if (value === undefined) return undefined;
  const next = NUMBER_WORDS.get(pieces[at + 1] ?? '');
  const compound = value >= 20 && value % 10 === 0 && next !== undefined && next >= 1 && next <= 9;
  return compound ? { value: value + next, length: 2 } : { value, length: 1 };
}

/** Reads the words that follow `for`. */
export function readSpokenDuration(words: readonly string[]): SpokenDuration {
  const pieces = piecesOf(words);
  let ms = 0;
  let at = 0;
  while (at < pieces.length) {
    const number = numberAt(pieces, at);
    const unit = number === undefined ? undefined : UNIT_MS.get(pieces[at + number.length] ?? '');
    if (number === undefined || unit === undefined) return looksLikeDuration(pieces) ? { kind: 'unreadable' } : other;
    ms += number.value * unit;
    at += number.length + 1;
  }
  if (pieces.length === 0 || !Number.isSafeInteger(ms) || ms % MINUTE_MS !== 0) {
    return looksLikeDuration(pieces) ? { kind: 'unreadable' } : other;
  }
  return { kind: 'duration', ms };
}

const other: SpokenDuration = { kind: 'other' };

/** A number first (but not a lone "a"/"an": "for a partner"), or any word about time. */
function looksLikeDuration(pieces: readonly string[]): boolean {
  const [first = ''] = pieces;
  if (isDigits(first) || (NUMBER_WORDS.has(first) && first !== 'a' && first !== 'an')) return true;
  return pieces.some((piece) => UNIT_MS.has(piece) || TIME_WORDS.has(piece));
}
