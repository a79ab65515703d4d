import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, root), 'utf8');

describe('README', () => {
  const readme = read('README.md');

  it('is short enough to read: what a user and an operator need, not the measurement history', () => {
    expect(readme.split('\n').length).toBeLessThan(600);
    // The history (earlier runs, why older figures disagreed) lives in docs/performance.md.
    expect(readme).not.toMatch(/Why the earlier figures disagreed/);
    expect(readme).not.toMatch(/runs A \/ B \/ C/);
  });

  it('links every document it moved out, and each of them exists', () => {
    const links = [...readme.matchAll(/\]\((docs\/[^)#]+)\)/g)].map((match) => match[1] ?? '');
    expect(links).toContain('docs/performance.md');
    for (const link of links) expect(existsSync(new URL(link, root)), link).toBe(true);
    expect(read('docs/performance.md')).toMatch(/Why the earlier figures disagreed/);
  });
});
