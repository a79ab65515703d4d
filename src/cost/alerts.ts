/**
 * COST_ALERTS: once an hour, every replica looks at yesterday's spend per service (cached days,
 * so a look costs at most a read of the unlocked days) and posts an alert for each service whose
 * spend rose above the threshold or by the factor over its 7-day median. Each alert is claimed
 * once per service per day across replicas (the cost store's claim) before it is posted, so two
 * replicas never post it twice; a post that fails after the claim is logged, not retried.
 */
import { alertRange, costAlerts, type AlertRules } from '../core/cost/alerts.js';
import { costAlertText } from '../core/render/cost.js';
import { section } from '../core/render/mrkdwn.js';
import type { CostDayStore, CostReader, Log, Messenger } from '../ports/index.js';

/** Longer than the day an alert is about, so a late replica cannot claim it again. */
const CLAIM_MS = 3 * 86_400_000;

export interface CostAlertsOptions {
  costs: CostReader;
  claims: Pick<CostDayStore, 'claimOnce'>;
  messenger: Messenger;
  channelId: string;
  rules: AlertRules;
  slashCommand: string;
  logger: Pick<Log, 'warn'>;
  now?: () => number;
  /**
   * The services the channel may see (ORGANIZATIONS_FILE: a scoped channel, or one of another
   * organization, sees only some or none); undefined: every service of the organization.
   */
  visibleServices?: () => Promise<ReadonlySet<string> | undefined>;
}

export class CostAlerts {
  constructor(private readonly options: CostAlertsOptions) {}

  /** One look: posts the alerts no replica has posted yet; resolves with how many this one posted. */
  async look(): Promise<number> {
    const { costs, claims, messenger, channelId, rules, slashCommand, logger } = this.options;
    const now = (this.options.now ?? Date.now)();
    const rows = await costs.rows(alertRange(now), { person: 'cost alerts' });
    const alerts = costAlerts(rows, now, rules);
    const visible = alerts.length > 0 ? await this.options.visibleServices?.() : undefined;
    let posted = 0;
    for (const alert of alerts.filter((found) => !visible || visible.has(found.serviceId))) {
      if (!(await claims.claimOnce(`alert:${alert.serviceId}:${alert.date}`, CLAIM_MS))) continue;
      const text = costAlertText(alert, rules, slashCommand);
      try {
        await messenger.post(channelId, { text, blocks: [section(text)] });
        posted += 1;
      } catch (error) {
        logger.warn(`cost alert for ${alert.serviceId} on ${alert.date} not posted: ${String(error)}`);
      }
    }
    return posted;
  }
}
