/** app_home_opened: the person's Home tab is built and published (views.publish) when they open it. */
import type { App } from '@slack/bolt';
import type { ListenerDeps } from '../deps.js';

export function registerHomeOpened(app: App, deps: ListenerDeps): void {
  const homes = deps.homes;
  if (!homes) return;
  app.event('app_home_opened', async ({ event }) => {
    // The same event tells of the Messages tab: only the Home tab is ours to draw.
    if (event.tab !== 'home') return;
    // Never throws: a failure to read the store or to publish is logged by the Home tabs.
    await homes.opened(event.user);
  });
}
