/**
 * `health SERVICE`: state, version, queries running now and memory in use per replica against its
 * size, from the service's metrics. An idle or stopped service is said to be so and its metrics are
 * not read (reading never wakes a service, and such a service has no replica to answer).
 */
import { loadFigures, replicaSizeGb, type LoadFigures, type ServiceLoad } from '../service/load.js';
import type { ServiceRecord } from '../service/schema.js';
import { code, context, esc, header, section, serviceRef, serviceRefPlain, type Block } from './mrkdwn.js';

const GIB = 1024 ** 3;

const gb = (bytes: number) => (bytes / GIB).toFixed(bytes >= 10 * GIB ? 0 : 1);

/** "12 queries running, 41 of 48 GB in use on the busiest replica". */
export function loadLine(service: ServiceRecord, load: ServiceLoad): string {
  return figuresText(loadFigures(load, replicaSizeGb(service)));
}

/** The same from the figures alone (a change request keeps them with its plan). */
export function figuresText(figures: LoadFigures): string {
  const { queries, busiestMemoryBytes: busiest, replicaSizeGb: size } = figures;
  const running =
    queries === undefined ? 'queries running: unknown' : `${queries} ${queries === 1 ? 'query' : 'queries'} running`;
  const memory =
    busiest === undefined
      ? 'memory in use: unknown'
      : `${gb(busiest)}${size === undefined ? ' GB' : ` of ${size} GB`} in use on the busiest replica`;
  return `${running}, ${memory}`;
}

/** "41 GB" (whole gigabytes from 10 GB on). */
export const gbText = (bytes: number): string => `${gb(bytes)} GB`;

export function healthBlocks(service: ServiceRecord, load: ServiceLoad | undefined): Block[] {
  const state = load?.state ?? service.state ?? 'unknown';
  const version = load?.version ?? service.clickhouseVersion;
  const lines = [`State: ${code(state)}${version ? ` · version ${code(version)}` : ''}`];
  if (load === undefined) {
    lines.push(
      `It is ${esc(state)}: its metrics are not read, since reading never wakes a service and one that is not running has no replica to answer.`,
    );
  } else {
    lines.push(`*Right now:* ${loadLine(service, load)}.`);
    const size = replicaSizeGb(service);
    for (const replica of load.replicas)
      lines.push(
        `• ${code(replica.hostname)}: ${gb(replica.memoryBytes)}${size === undefined ? '' : ` of ${size}`} GB in use`,
      );
    if (load.partial) lines.push(':warning: Some replicas did not answer: the figures cover those that did.');
  }
  return [
    header(`Health of ${serviceRefPlain(service.name, service.id)}`),
    section(`${serviceRef(service.name, service.id)}\n${lines.join('\n')}`),
    context('From the service’s Prometheus metrics, read just now.'),
  ];
}
