/**
 * The daily spend chart, rendered on the server: Apache ECharts draws it as SVG (its server-side
 * renderer, no DOM, no browser) and resvg turns the SVG into a PNG. Stacked bars, one colour per
 * service from the Okabe–Ito palette (told apart by people with colour-blind vision), on an opaque
 * background so the image reads the same in Slack's light and dark themes.
 */
import { existsSync } from 'node:fs';
import { Resvg } from '@resvg/resvg-js';
import { BarChart, LineChart } from 'echarts/charts';
import { GridComponent, LegendComponent, TitleComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { SVGRenderer } from 'echarts/renderers';
import type { DailySpendSeries } from '../core/cost/report.js';
import { visible } from '../core/render/mrkdwn.js';
import type { ChartRenderer, ChartTheme } from '../ports/cost.js';

echarts.use([BarChart, LineChart, GridComponent, LegendComponent, TitleComponent, SVGRenderer]);

/** Okabe–Ito, then two greys for the rest ("other" is always the last grey). */
const PALETTE = ['#0072B2', '#E69F00', '#009E73', '#D55E00', '#CC79A7', '#56B4E9', '#F0E442', '#882255', '#999999'];
const OTHER_COLOUR = '#8c8c8c';

const THEMES: Record<ChartTheme, { background: string; text: string; grid: string }> = {
  light: { background: '#ffffff', text: '#1d1c1d', grid: '#dddddd' },
  dark: { background: '#1a1d21', text: '#e8e8e8', grid: '#3a3d42' },
};

/** Fonts resvg is given by path (fast) when present; else it looks through the system's. */
const FONT_CANDIDATES = [
  '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf',
  '/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf',
  '/usr/share/fonts/dejavu/DejaVuSans.ttf',
];
const FONT_FILES = FONT_CANDIDATES.filter((path) => existsSync(path));
const FONT_FAMILY = FONT_FILES[0]?.includes('Liberation') ? 'Liberation Sans' : 'DejaVu Sans';

const BARS_UP_TO_DAYS = 31;

export const DEFAULT_CHART_SIZE = { width: 900, height: 420 };

/** Characters XML refuses in text: one in a service name would make the whole SVG unreadable to resvg. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

/** Data as the chart draws it: invisible and non-XML characters by their code point, as messages show them. */
function drawn(text: string): string {
  return visible(text).replace(
    NOT_XML,
    (char) => `[U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}]`,
  );
}

export const Y_AXIS_UNIT = 'CHC per day';

/** The chart as an SVG document (exported for the benchmark, which times both halves). */
export function dailySpendSvg(
  data: DailySpendSeries,
  options: { title: string; theme?: ChartTheme; width?: number; height?: number },
): string {
  const width = options.width ?? DEFAULT_CHART_SIZE.width;
  const height = options.height ?? DEFAULT_CHART_SIZE.height;
  const colours = THEMES[options.theme ?? 'light'];
  // A bar per service per day reads best for a month or less; past that, stacked areas draw a
  // path per service instead of thousands of bars (and render in a fraction of the time).
  const bars = data.days.length <= BARS_UP_TO_DAYS;
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width, height });
  try {
    chart.setOption({
      animation: false,
      backgroundColor: colours.background,
      textStyle: { fontFamily: FONT_FAMILY, color: colours.text },
      title: { text: drawn(options.title), left: 12, top: 8, textStyle: { color: colours.text, fontSize: 15 } },
      legend: {
        type: 'plain',
        bottom: 6,
        left: 12,
        right: 12,
        itemGap: 18,
        itemWidth: 14,
        textStyle: { color: colours.text, fontSize: 11 },
      },
      grid: { left: 60, right: 20, top: 48, bottom: 40 + 18 * Math.ceil(data.series.length / 5) },
      xAxis: {
        type: 'category',
        data: data.days.map((day) => day.slice(5)),
        axisLabel: { color: colours.text, fontSize: 10 },
        axisLine: { lineStyle: { color: colours.grid } },
      },
      yAxis: {
        type: 'value',
        // The unit, as the report's text gives it: ClickHouse Credits a day.
        name: Y_AXIS_UNIT,
        nameLocation: 'middle',
        nameGap: 44,
        nameTextStyle: { color: colours.text, fontSize: 10 },
        axisLabel: { color: colours.text, fontSize: 10 },
        splitLine: { lineStyle: { color: colours.grid } },
      },
      color: data.series.map((s, i) =>
        s.name === 'other' ? OTHER_COLOUR : (PALETTE[i % PALETTE.length] ?? OTHER_COLOUR),
      ),
      series: data.series.map((s) => ({
        ...(bars
          ? { type: 'bar', barCategoryGap: '20%' }
          : { type: 'line', areaStyle: { opacity: 1 }, symbol: 'none', lineStyle: { width: 0 } }),
        name: drawn(s.name),
        stack: 'spend',
        data: s.values.map((value) => Math.round(value * 100) / 100),
      })),
    });
    return chart.renderToSVGString();
  } finally {
    // Without it zrender keeps an animation timer alive and the process never exits.
    chart.dispose();
  }
}

export function svgToPng(svg: string, width: number): Uint8Array {
  const font =
    FONT_FILES.length > 0
      ? { fontFiles: FONT_FILES, loadSystemFonts: false, defaultFontFamily: FONT_FAMILY }
      : { loadSystemFonts: true };
  return new Resvg(svg, { font, shapeRendering: 1, fitTo: { mode: 'width', value: width } }).render().asPng();
}

export const echartsRenderer: ChartRenderer = {
  dailySpend(data, options) {
    const width = options.width ?? DEFAULT_CHART_SIZE.width;
    return Promise.resolve(svgToPng(dailySpendSvg(data, options), width));
  },
};
