/**
 * `npm run simulator`: serves the demo organization on 127.0.0.1 (SIMULATOR_PORT, 8124 unless
 * set) so the bot can run end to end without a ClickHouse Cloud account. A stop, start or wake
 * takes SIMULATOR_TRANSITION_MS (5000 unless set) to settle.
 */
import { DEMO_KEY_ID, DEMO_KEY_SECRET, DEMO_ORG_ID, demoServices } from './seed.js';
import { CloudSimulator, DEFAULT_TRANSITION_MS } from './server.js';

const DEFAULT_PORT = 8124;

function portFromEnvironment(): number {
  const text = process.env['SIMULATOR_PORT'];
  if (text === undefined || text === '') return DEFAULT_PORT;
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`SIMULATOR_PORT must be a port number (0-65535), got "${text}"`);
  }
  return port;
}

/** SIMULATOR_TRANSITION_MS: how long stopping, starting and awaking last (ms). */
function transitionFromEnvironment(): number {
  const text = process.env['SIMULATOR_TRANSITION_MS'];
  if (text === undefined || text === '') return DEFAULT_TRANSITION_MS;
  const ms = Number(text);
  if (!Number.isInteger(ms) || ms < 0) {
    throw new Error(`SIMULATOR_TRANSITION_MS must be a whole number of milliseconds (0 or more), got "${text}"`);
  }
  return ms;
}

function printBanner(simulator: CloudSimulator, keyId: string, keySecret: string): void {
  const lines = [
    `ClickHouse Cloud API simulator listening on ${simulator.url}`,
    `  organization id: ${simulator.orgId}`,
    `  key id:          ${keyId}`,
    `  key secret:      ${keySecret}   (a demo secret: it opens nothing but this simulator)`,
    `  services:        ${simulator.services().length}`,
    '',
    'Try:',
    `  curl -s -u '${keyId}:${keySecret}' \\`,
    `    '${simulator.url}/v1/organizations/${simulator.orgId}/services?filter=tag:env=prod'`,
    '',
  ];
  console.log(lines.join('\n'));
}

async function main(): Promise<void> {
  // Overridable so the simulator can match credentials already written in a .env.
  const keyId = process.env['SIMULATOR_KEY_ID'] || DEMO_KEY_ID;
  const keySecret = process.env['SIMULATOR_KEY_SECRET'] || DEMO_KEY_SECRET;
  const simulator = await CloudSimulator.start({
    keyId,
    keySecret,
    orgId: DEMO_ORG_ID,
    services: demoServices(),
    host: '127.0.0.1',
    port: portFromEnvironment(),
    transitionMs: transitionFromEnvironment(),
  });
  printBanner(simulator, keyId, keySecret);
  simulator.on('request', (request) => {
    const query = request.query.size > 0 ? `?${request.query.toString()}` : '';
    console.log(`${new Date(request.at).toISOString()} ${request.method} ${request.path}${query}`);
  });

  const stop = (signal: NodeJS.Signals): void => {
    console.log(`${signal} received, stopping the simulator`);
    simulator.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(`simulator failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
