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

  it('shows npm run playground right under the two commands of the quick start (issue 41)', () => {
    const lines = readme.split('\n');
    const start = lines.findIndex((line) => line.includes('npm start'));
    const test = lines.findIndex((line) => line.includes('npm test'));
    const playground = lines.findIndex((line) => line.includes('npm run playground'));
    expect(start).toBeGreaterThan(0);
    expect(test).toBe(start + 1);
    expect(playground - test).toBeGreaterThan(0);
    expect(playground - test).toBeLessThanOrEqual(4);
  });

  it('reads in five minutes: the settings that matter here, every setting and the operations in docs/', () => {
    expect(readme.split('\n').length).toBeLessThan(400);
    expect(readme).toContain('## Settings that matter');
    for (const doc of ['docs/configuration.md', 'docs/operations.md', 'docs/development.md'])
      expect(readme).toContain(`](${doc})`);
    expect(readme).not.toContain('## Metrics');
    expect(read('docs/operations.md')).toContain('## Metrics');
  });
});
