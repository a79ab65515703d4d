/**
 * Shares a report's daily spend chart: the top services and "other" (one service: its kinds), rendered as a PNG and
 * uploaded into the channel or the report's thread with its text alternative. A chart that cannot
 * be drawn or shared never takes the report with it: the channel is told why, in a sentence.
 */
import { dailySpendSeries, type CostReport } from '../core/cost/report.js';
import { chartAltText, chartFailedText, chartTitle } from '../core/render/cost.js';
import { messageOf } from '../core/render/errors.js';
import { section } from '../core/render/mrkdwn.js';
import { MessengerError, type ChartRenderer, type Log, type Messenger, type SpendCharts } from '../ports/index.js';

/** Services drawn in the chart before the rest become "other". */
export const CHART_TOP_SERVICES = 8;

export class ChartPoster implements SpendCharts {
  constructor(private readonly deps: { charts: ChartRenderer; messenger: Messenger; logger: Pick<Log, 'warn'> }) {}

  async share(report: CostReport, scopeLabel: string, channelId: string, threadTs?: string): Promise<void> {
    const series = dailySpendSeries(report, CHART_TOP_SERVICES);
    if (series.series.length === 0) return;
    const title = chartTitle(series, scopeLabel);
    try {
      const bytes = await this.deps.charts.dailySpend(series, { title });
      await this.deps.messenger.uploadFile(channelId, {
        filename: `spend-${report.period.from}-${report.period.to}.png`,
        bytes,
        title,
        altText: chartAltText(series, scopeLabel),
        ...(threadTs ? { threadTs } : {}),
      });
    } catch (error) {
      this.deps.logger.warn(`spend chart not shared in ${channelId}: ${messageOf(error)}`);
      const text = chartFailedText(error instanceof MessengerError ? error.code : 'internal_error');
      await this.deps.messenger
        .post(channelId, { text, blocks: [section(text)], ...(threadTs ? { threadTs } : {}) })
        .catch(() => undefined);
    }
  }
}
