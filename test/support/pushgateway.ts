/**
 * A small real HTTP server on loopback that keeps metric groups as the Prometheus
 * Pushgateway does (https://github.com/prometheus/pushgateway#api): a group is the label
 * set of the URL path `/metrics/job/<job>{/<name>/<value>}` (`<name>@base64` for a
 * base64url value); PUT replaces the group, POST replaces only the metrics it sends,
 * DELETE removes the group. Labels of the grouping key overwrite those of the samples.
 * It is not our code under test: it stands where a Pushgateway would.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Sample {
  labels: Record<string, string>;
  value: number;
}

export interface Group {
  /** The grouping key: job and the labels of the path. */
  labels: Record<string, string>;
  /** Samples by metric name. */
  metrics: Map<string, Sample[]>;
}

export interface PushRequest {
  method: string;
  path: string;
  authorization: string | undefined;
}

export interface GroupStore {
  /** Base URL, with the path prefix the store was started with. */
  url: string;
  /** Groups by their canonical key (sorted `name="value"` pairs). */
  groups: Map<string, Group>;
  requests: PushRequest[];
  /** While set, every push is refused with this status. */
  refuseWith: number | undefined;
  close(): Promise<void>;
}

/** Starts a group store; `prefix` is the path of a proxy in front of it, such as `/gw`. */
export async function startGroupStore(prefix = ''): Promise<GroupStore> {
  const groups = new Map<string, Group>();
  const requests: PushRequest[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => handle(request, body, response));
  });
  const store: GroupStore = {
    url: '',
    groups,
    requests,
    refuseWith: undefined,
    close: async () => {
      server.close();
      await once(server, 'close');
    },
  };

  function handle(request: IncomingMessage, body: string, response: ServerResponse): void {
    const path = (request.url ?? '').split('?')[0] ?? '';
    requests.push({ method: request.method ?? '', path, authorization: request.headers.authorization });
    if (store.refuseWith !== undefined) return void response.writeHead(store.refuseWith).end('gateway unhappy');
    const key = path.startsWith(`${prefix}/metrics/`) ? groupingKey(path.slice(prefix.length)) : 'not a push path';
    if (typeof key === 'string') return void response.writeHead(400).end(key);
    const id = canonical(key);
    const pushed = parseText(body, key);
    if (typeof pushed === 'string') return void response.writeHead(400).end(pushed);
    switch (request.method) {
      case 'PUT':
        groups.set(id, { labels: key, metrics: pushed });
        return void response.writeHead(200).end();
      case 'POST': {
        const group = groups.get(id) ?? { labels: key, metrics: new Map() };
        for (const [name, samples] of pushed) group.metrics.set(name, samples);
        groups.set(id, group);
        return void response.writeHead(200).end();
      }
      case 'DELETE':
        groups.delete(id);
        return void response.writeHead(202).end();
      default:
        return void response.writeHead(405).end();
    }
  }

  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  store.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${prefix}`;
  return store;
}

/** The label set of a push path, as the Pushgateway's router reads it; a string says what is wrong. */
function groupingKey(path: string): Record<string, string> | string {
  // Go's router matches the decoded path: a %2F is a separator by then.
  const segments = decodeURIComponent(path).split('/');
  const [, metrics, job, ...pairs] = segments;
  if (metrics !== 'metrics' || (job !== 'job' && job !== 'job@base64') || pairs.length % 2 !== 1) return `bad push path ${path}`;
  const read = (name: string, value: string): [string, string] =>
    name.endsWith('@base64') ? [name.slice(0, -'@base64'.length), Buffer.from(value, 'base64url').toString('utf8')] : [name, value];
  const labels: Record<string, string> = {};
  const all = [job, ...pairs];
  for (let at = 0; at < all.length; at += 2) {
    const raw = all[at + 1] ?? '';
    // An empty segment is what path cleaning drops: only base64 "=" says "empty".
    if (raw === '') return `an empty segment in ${path}`;
    const [name, value] = read(all[at] ?? '', raw);
    if (!/^[a-zA-Z_][a-zA-Z0-9_]*$/.test(name)) return `bad label name in ${path}`;
    if (Object.hasOwn(labels, name)) return `label ${name} twice in ${path}`;
    labels[name] = value;
  }
  return labels;
}

function canonical(labels: Record<string, string>): string {
  return Object.entries(labels)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, value]) => `${name}=${JSON.stringify(value)}`)
    .join(',');
}

/** The text exposition format, enough of it for gauges; the grouping labels overwrite the samples'. */
function parseText(body: string, grouping: Record<string, string>): Map<string, Sample[]> | string {
  const metrics = new Map<string, Sample[]>();
  for (const line of body.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (match === null) return `not a sample: ${line}`;
    const [, name = '', labelText = '', value = ''] = match;
    const labels: Record<string, string> = {};
    for (const [, label = '', text = ''] of labelText.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[label] = text;
    const samples = metrics.get(name) ?? [];
    samples.push({ labels: { ...labels, ...grouping }, value: Number(value) });
    metrics.set(name, samples);
  }
  return metrics;
}

/** The one sample of a metric without labels of its own in a group, or undefined. */
export function valueOf(group: Group | undefined, metric: string, labels: Record<string, string> = {}): number | undefined {
  const samples = group?.metrics.get(metric) ?? [];
  return samples.find((sample) => Object.entries(labels).every(([name, value]) => sample.labels[name] === value))?.value;
}
