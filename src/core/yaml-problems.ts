/**
 * Where a problem is in a YAML file the bot reads (POLICY_FILE, ORGANIZATIONS_FILE): the offset of
 * a node or a key for its line, "line N: " prefixes, and ordering problems by line. Pure.
 */
import { isMap, isPair, isScalar, type Document } from 'yaml';
import type { z } from 'zod';

/** The value at a key path of parsed data; undefined where the path leaves objects. */
export function valueAt(data: unknown, path: Array<string | number>): unknown {
  let value = data;
  for (const part of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = Reflect.get(value, part);
  }
  return value;
}

export function nodeOffset(doc: Document, path: Array<string | number>): number | undefined {
  for (let end = path.length; end >= 0; end--) {
    const node: unknown = end === 0 ? doc.contents : doc.getIn(path.slice(0, end), true);
    const range: unknown = typeof node === 'object' && node !== null ? Reflect.get(node, 'range') : undefined;
    if (Array.isArray(range) && typeof range[0] === 'number') return range[0];
  }
  return undefined;
}

export function keyOffset(doc: Document, path: Array<string | number>, key: string | undefined): number | undefined {
  const node: unknown = path.length === 0 ? doc.contents : doc.getIn(path, true);
  if (!isMap(node)) return undefined;
  const pair = node.items.find((item) => isPair(item) && isScalar(item.key) && String(item.key.value) === key);
  return pair && isScalar(pair.key) ? pair.key.range?.[0] : undefined;
}

export function located(line: number | undefined, message: string): string {
  return line === undefined ? message : `line ${line}: ${message}`;
}

export const firstLine = (text: string) => text.split('\n')[0] ?? '';

export function byLine(a: string, b: string): number {
  const line = (text: string) => Number(/^line (\d+):/.exec(text)?.[1] ?? 0);
  return line(a) - line(b);
}

/**
 * What a zod issue says of the value at its path: a bad key's own problem, "missing" (in the
 * file's words) when nothing is there, else zod's message (the schemas word their errors).
 */
export function issueMessage(
  issue: z.core.$ZodIssue,
  data: unknown,
  path: Array<string | number>,
  missing: (path: Array<string | number>) => string,
): string {
  if (issue.code === 'invalid_key') return issue.issues[0]?.message ?? issue.message;
  return valueAt(data, path) === undefined && path.length > 0 ? missing(path) : issue.message;
}
