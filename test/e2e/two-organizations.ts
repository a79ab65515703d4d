/**
 * Two organizations bound to two channels: #analytics (the harness's CHANNEL) on the demo
 * organization and #billing on one that holds only `ledger-prod`. The setup of the tests that
 * check nobody outside #billing sees or decides its requests.
 */
import { randomUUID } from 'node:crypto';
import { DEMO_IDS, demoServices } from '../../src/simulator/seed.js';
import { CHANNEL, type Harness, type OrganizationSetup } from './harness.js';

export const BILL = 'C0BILL';
export const LEDGER_ID = randomUUID();
const ledger = demoServices()
  .filter((service) => service.id === DEMO_IDS.ordersProd)
  .map((service) => ({ ...service, id: LEDGER_ID, name: 'ledger-prod' }));
export const ANALYTICS: OrganizationSetup = { name: 'analytics', channels: { [CHANNEL]: {} } };
export const BILLING: OrganizationSetup = { name: 'billing', channels: { [BILL]: {} }, services: ledger };

/** The update calls #billing's organization received. */
export const billingPatches = (h: Harness) =>
  (h.simulators.billing?.requests ?? []).filter((request) => request.method === 'PATCH');
