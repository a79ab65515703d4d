/**
 * A ticket id that a rule's ticket pattern accepts (`^[A-Z]+-[0-9]+$` -> OPS-123): people are
 * shown an example, never the regular expression. Built from the pattern's common pieces
 * (literals, classes, \d \w, groups, alternatives, quantifiers) and kept only if it matches every
 * pattern given; otherwise a few usual ticket shapes are tried. Undefined when none fits.
 */
import { checkTicket, ticketMatches } from './justification.js';

const UPPER = 'OPSABCDEFGHIJKLMNQRTUVWXYZ';
const DIGITS = '1234567890';
const LOWER = UPPER.toLowerCase();
const PUNCTUATION = '-_.#/:';
/** Usual ticket shapes, tried when the pattern is beyond the small reader below. */
const USUAL = ['OPS-123', 'INC-42', 'INC0012345', 'CHG0012345', 'ABC-123', 'OPS123', '123'];

export function ticketExample(patterns: readonly string[]): string | undefined {
  const fits = (ticket: string) => checkTicket(ticket).ok && patterns.every((p) => ticketMatches(p, ticket));
  const built = patterns.map(exampleOf).filter((ticket): ticket is string => ticket !== undefined);
  return [...built, ...USUAL].find(fits);
}

/** One pattern's example, or undefined for pieces it does not read (lookarounds, \s…). */
function exampleOf(pattern: string): string | undefined {
  try {
    const reader = new Reader(pattern);
    const text = reader.alternatives();
    return reader.done() ? text : undefined;
  } catch {
    return undefined;
  }
}

/** One piece of a pattern: a literal, a class of characters (a test), or a group's own example. */
interface Atom {
  text?: string;
  accepts?: (char: string) => boolean;
  group?: string;
}

class Unreadable extends Error {}

class Reader {
  private at = 0;
  constructor(private readonly pattern: string) {}

  done(): boolean {
    return this.at >= this.pattern.length;
  }

  /** `a|b`: the first alternative. */
  alternatives(): string {
    const first = this.sequence();
    while (this.peek() === '|') {
      this.at += 1;
      this.sequence();
    }
    return first;
  }

  private sequence(): string {
    let text = '';
    while (!this.done() && this.peek() !== '|' && this.peek() !== ')') {
      const char = this.peek();
      if (char === '^' || char === '$') {
        this.at += 1;
        continue;
      }
      const atom = this.atom();
      text += this.repeat(atom);
    }
    return text;
  }

  private atom(): Atom {
    const char = this.next();
    if (char === '(') {
      if (this.peek() === '?') {
        this.at += 1;
        const kind = this.next();
        if (kind === '<' && /[A-Za-z]/.test(this.peek())) this.at = this.pattern.indexOf('>', this.at) + 1;
        else if (kind !== ':') throw new Unreadable();
      }
      const group = this.alternatives();
      if (this.next() !== ')') throw new Unreadable();
      return { group };
    }
    if (char === '[') return { accepts: this.charClass() };
    if (char === '.') return { accepts: () => true };
    if (char === '\\') return this.escaped();
    return { text: char };
  }

  private escaped(): Atom {
    const char = this.next();
    if (char === 'd') return { accepts: (c) => /\d/.test(c) };
    if (char === 'w') return { accepts: (c) => /\w/.test(c) };
    if (/[A-Za-z0-9]/.test(char)) throw new Unreadable();
    return { text: char };
  }

  /** `[A-Z0-9-]`, `[^…]`: a test over one character. */
  private charClass(): (char: string) => boolean {
    const end = this.classEnd();
    const body = this.pattern.slice(this.at, end);
    this.at = end + 1;
    const set = new RegExp(`^[${body}]$`, 'u');
    return (char) => set.test(char);
  }

  private classEnd(): number {
    for (let i = this.at + (this.pattern[this.at] === '^' ? 1 : 0) + 1; i < this.pattern.length; i++) {
      if (this.pattern[i] === '\\') i += 1;
      else if (this.pattern[i] === ']') return i;
    }
    throw new Unreadable();
  }

  /** The atom as often as its quantifier asks: a run of 3 for a class where allowed, else the least. */
  private repeat(atom: Atom): string {
    const { min, max } = this.quantifier();
    if (atom.group !== undefined) return atom.group.repeat(min);
    if (atom.text !== undefined) return atom.text.repeat(min);
    const count = Math.min(Math.max(3, min), max);
    let text = '';
    for (let k = 0; k < count; k++) text += pick(atom.accepts ?? (() => false), k);
    return text;
  }

  private quantifier(): { min: number; max: number } {
    const char = this.peek();
    let bounds = { min: 1, max: 1 };
    if (char === '*') bounds = { min: 0, max: Infinity };
    else if (char === '+') bounds = { min: 1, max: Infinity };
    else if (char === '?') bounds = { min: 0, max: 1 };
    else if (char === '{') {
      const match = /^\{(\d+)(,(\d*))?\}/.exec(this.pattern.slice(this.at));
      if (!match) return bounds;
      const min = Number(match[1]);
      const max = match[2] === undefined ? min : match[3] ? Number(match[3]) : Infinity;
      this.at += match[0].length;
      if (this.peek() === '?') this.at += 1;
      return { min, max };
    } else return bounds;
    this.at += 1;
    if (this.peek() === '?') this.at += 1;
    return bounds;
  }

  private peek(): string {
    return this.pattern[this.at] ?? '';
  }

  private next(): string {
    if (this.done()) throw new Unreadable();
    const char = this.pattern[this.at] ?? '';
    this.at += 1;
    return char;
  }
}

/** The k-th character of a run the class accepts: OPS…, 123…, ops…, then punctuation. */
function pick(accepts: (char: string) => boolean, k: number): string {
  const at = (chars: string) => chars[k % chars.length] ?? '';
  const found = [at(UPPER), at(DIGITS), at(LOWER), ...UPPER, ...DIGITS, ...LOWER, ...PUNCTUATION].find(
    (c) => c !== '' && accepts(c),
  );
  if (found === undefined) throw new Unreadable();
  return found;
}
