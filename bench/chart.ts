/**
 * The daily spend chart's rendering time: 90 days × 50 services of usage cost rows, through the
 * report (attribution, totals), the chart's series (top services and "other"), ECharts' SVG and
 * resvg's PNG, as `/clickhouse cost 90d` does it. Part of `npm run bench`; alone:
 * `npx tsc -p tsconfig.bench.json && node dist-bench/bench/chart.js`.
 */
import { fileURLToPath } from 'node:url';
import { dailySpendSvg, svgToPng, DEFAULT_CHART_SIZE } from '../src/chart/echarts.js';
import { addDays, previousPeriod } from '../src/core/cost/period.js';
import { costReport, dailySpendSeries } from '../src/core/cost/report.js';
import { CostRowSchema, type CostRow } from '../src/core/cost/schema.js';

const DAYS = 90;
const SERVICES = 50;
export const CHART_BUDGET_MS = 200;

function rows(): CostRow[] {
  const out: CostRow[] = [];
  for (let d = 0; d < DAYS; d += 1) {
    const date = addDays('2026-01-01', d);
    for (let s = 0; s < SERVICES; s += 1) {
      const compute = 5 + ((s * 7 + d * 3) % 17);
      out.push(
        CostRowSchema.parse({
          date,
          entityType: 'service',
          entityId: `svc-${s}`,
          entityName: `service-${s}`,
          totalCHC: compute + 1,
          locked: true,
          metrics: { computeCHC: compute, storageCHC: 1 },
        }),
      );
    }
  }
  return out;
}

export interface ChartTiming {
  medianMs: number;
  /** CPU time (user + system) of the process per render: what a loaded machine does not inflate. */
  medianCpuMs: number;
  minMs: number;
  maxMs: number;
  runs: number;
  pngBytes: number;
}

/** Median of `runs` renders after two warm-up renders (JIT, fonts). */
export function chartRenderingCost(runs = 15): ChartTiming {
  const period = { from: '2026-01-01', to: addDays('2026-01-01', DAYS - 1) };
  const data = rows();
  const render = () => {
    const report = costReport(data, period, previousPeriod(period));
    const series = dailySpendSeries(report, 8);
    return svgToPng(dailySpendSvg(series, { title: 'Daily spend (CHC)' }), DEFAULT_CHART_SIZE.width);
  };
  render();
  let png = render();
  const samples: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const start = performance.now();
    const cpuStart = process.cpuUsage();
    png = render();
    const used = process.cpuUsage(cpuStart);
    samples.push(performance.now() - start);
    cpu.push((used.user + used.system) / 1000);
  }
  samples.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  return {
    medianMs: samples[Math.floor(runs / 2)] ?? NaN,
    medianCpuMs: cpu[Math.floor(runs / 2)] ?? NaN,
    minMs: samples[0] ?? NaN,
    maxMs: samples.at(-1) ?? NaN,
    runs,
    pngBytes: png.length,
  };
}

export function chartRow(timing: ChartTiming): string[] {
  return [
    `spend chart, ${DAYS} days × ${SERVICES} services (PNG ${DEFAULT_CHART_SIZE.width}×${DEFAULT_CHART_SIZE.height})`,
    `${timing.medianMs.toFixed(1)} wall, ${timing.medianCpuMs.toFixed(1)} CPU (wall min ${timing.minMs.toFixed(1)}, max ${timing.maxMs.toFixed(1)}; budget ${CHART_BUDGET_MS})`,
    `${Math.round(timing.pngBytes / 1024)} KiB`,
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const timing = chartRenderingCost();
  console.log(chartRow(timing).join(' | '));
}
