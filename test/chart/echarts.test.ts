/**
 * The chart draws whatever service names the API returns: characters XML refuses must not cost
 * the whole chart, and invisible ones (a bidi override reverses what follows) are shown by their
 * code point, as in messages, not obeyed.
 */
import { describe, expect, it } from 'vitest';
import { dailySpendSvg, echartsRenderer, Y_AXIS_UNIT } from '../../src/chart/echarts.js';
import { chartAltText } from '../../src/core/render/cost.js';

const data = {
  days: ['2026-11-01', '2026-11-02'],
  series: [
    { name: 'orders\u0000prod', values: [1, 2], total: 3 },
    { name: 'events\u202Edorp', values: [2, 1], total: 3 },
  ],
  splitBy: 'service' as const,
};

describe('the spend chart with odd service names', () => {
  it('is drawn when a name holds a character XML refuses', async () => {
    const png = await echartsRenderer.dailySpend(data, { title: 'Daily spend', width: 320, height: 160 });
    expect(png.length).toBeGreaterThan(100);
  });

  it('shows a bidi override by its code point in the image and in its text alternative', () => {
    const svg = dailySpendSvg(data, { title: 'Daily spend', width: 320, height: 160 });
    expect(svg).toContain('events[U+202E]dorp');
    expect(svg).not.toContain('\u202E');
    const alt = chartAltText(data, 'the organization');
    expect(alt).toContain('events[U+202E]dorp 3.00');
    expect(alt).not.toContain('\u202E');
  });
});

describe('the spend chart axes', () => {
  it('names the unit of its y axis (issue 41)', () => {
    const svg = dailySpendSvg(data, { title: 'Daily spend', width: 320, height: 160 });
    expect(svg).toContain(Y_AXIS_UNIT);
    expect(Y_AXIS_UNIT).toBe('CHC per day');
  });
});
