/**
 * Seeds a control plane through its API as Tekton would leave it: each run created, then
 * its status written through the status subresource (the server drops a status sent on
 * create). Many requests in flight over one keep-alive agent; progress on stderr.
 */
import https from 'node:https';
import {
  LIVE_NAMESPACE,
  childTaskRunName,
  liveTargets,
  pipelineRunObjects,
  planNamespace,
  targetObject,
  taskRunObjects,
  type ClusterShape,
  type NamespacePlan,
  type TargetPlan,
} from './objects.js';

export interface ApiAnswer {
  status: number;
  body: Buffer;
}

const MAX_ATTEMPTS = 6;

/** A bare JSON client for the administrator: enough to seed and to measure the read floor. */
export class RawApi {
  readonly agent: https.Agent;
  requests = 0;

  constructor(
    readonly server: string,
    private readonly token: string,
    maxSockets: number,
  ) {
    this.agent = new https.Agent({ keepAlive: true, maxSockets, rejectUnauthorized: false });
  }

  close(): void {
    this.agent.destroy();
  }

  /** One request, retried on throttling, server errors and broken connections. */
  async request(method: string, path: string, body?: unknown): Promise<ApiAnswer> {
    for (let attempt = 1; ; attempt++) {
      try {
        const answer = await this.once(method, path, body);
        if ((answer.status !== 429 && answer.status < 500) || attempt >= MAX_ATTEMPTS) return answer;
      } catch (error) {
        if (attempt >= MAX_ATTEMPTS) throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** attempt));
    }
  }

  /** Like request(), but anything but 2xx (or one of `allowed`) throws with the server's message. */
  async expect(method: string, path: string, body?: unknown, allowed: readonly number[] = []): Promise<ApiAnswer> {
    const answer = await this.request(method, path, body);
    if ((answer.status < 200 || answer.status > 299) && !allowed.includes(answer.status)) {
      throw new Error(`${method} ${path}: ${answer.status} ${answer.body.toString('utf8').slice(0, 300)}`);
    }
    return answer;
  }

  private once(method: string, path: string, body: unknown): Promise<ApiAnswer> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const url = new URL(path, this.server);
    this.requests++;
    return new Promise((resolve, reject) => {
      const req = https.request(
        {
          hostname: url.hostname,
          port: url.port,
          path: `${url.pathname}${url.search}`,
          method,
          agent: this.agent,
          headers: {
            authorization: `Bearer ${this.token}`,
            accept: 'application/json',
            ...(payload !== undefined && { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }
}

const TEKTON = '/apis/tekton.dev';

function collection(kind: 'PipelineResource' | 'PipelineRun' | 'TaskRun', namespace: string): string {
  switch (kind) {
    case 'PipelineResource':
      return `${TEKTON}/v1alpha1/namespaces/${namespace}/pipelineresources`;
    case 'PipelineRun':
      return `${TEKTON}/v1beta1/namespaces/${namespace}/pipelineruns`;
    case 'TaskRun':
      return `${TEKTON}/v1beta1/namespaces/${namespace}/taskruns`;
  }
}

export interface SeedOptions {
  concurrency: number;
  log: (line: string) => void;
}

export interface SeedResult {
  objects: number;
  requests: number;
  ms: number;
  /** JSON bytes sent in run statuses and objects. */
  bytesSent: number;
}

/** A run with its status: create, then PUT status with the created object's resourceVersion. */
async function createWithStatus(api: RawApi, kind: 'PipelineRun' | 'TaskRun', object: Record<string, unknown>, status: Record<string, unknown>): Promise<{ uid: string; bytes: number }> {
  const meta = object['metadata'] as { namespace: string; name: string };
  const base = collection(kind, meta.namespace);
  const created = JSON.parse((await api.expect('POST', base, object)).body.toString('utf8')) as Record<string, unknown>;
  const body = { ...created, status };
  await api.expect('PUT', `${base}/${meta.name}/status`, body);
  return { uid: (created['metadata'] as { uid: string }).uid, bytes: JSON.stringify(body).length };
}

/** Runs `tasks` with `concurrency` in flight; each task reports how many objects it made. */
async function pool(tasks: Iterable<() => Promise<number>>, concurrency: number, onDone: (objects: number) => void): Promise<void> {
  const iterator = tasks[Symbol.iterator]();
  const worker = async (): Promise<void> => {
    for (let next = iterator.next(); next.done !== true; next = iterator.next()) onDone(await next.value());
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

function* seedTasks(api: RawApi, shape: ClusterShape, nowMs: number, sent: { bytes: number }): Generator<() => Promise<number>> {
  const prBytes = shape.prKb * 1024;
  const trBytes = shape.trKb * 1024;
  const plans: NamespacePlan[] = Array.from({ length: shape.namespaces }, (_, i) => planNamespace(shape, i));
  // Targets first (runs name them), then the runs, namespace after namespace.
  for (const plan of plans) {
    for (const [t, target] of plan.targets.entries()) yield () => createTarget(api, target, t, sent);
  }
  for (const plan of plans) {
    for (const run of plan.pipelineRuns) {
      yield async () => {
        const { object, status } = pipelineRunObjects(run, prBytes, nowMs);
        const childNames = Array.from({ length: run.children }, (_, i) => childTaskRunName(run.name, i));
        const parent = await createWithStatus(api, 'PipelineRun', object, status(childNames));
        // Never `sent.bytes += await …`: that reads the sum before the await and loses the other workers' additions.
        sent.bytes += parent.bytes;
        for (const [i, child] of childNames.entries()) {
          // Children of a running PipelineRun: the first has finished, the next still runs.
          const phase = run.phase === 'running' ? (i === 0 ? 'succeeded' : 'running') : run.phase;
          const objects = taskRunObjects(
            { namespace: run.namespace, name: child, phase, finishedHoursAgo: run.finishedHoursAgo, parent: { name: run.name, uid: parent.uid }, pipelineTask: child.slice(run.name.length + 1) },
            trBytes,
            nowMs,
          );
          const created = await createWithStatus(api, 'TaskRun', objects.object, objects.status());
          sent.bytes += created.bytes;
        }
        return 1 + childNames.length;
      };
    }
    for (const run of plan.taskRuns) {
      yield async () => {
        const { object, status } = taskRunObjects(run, trBytes, nowMs);
        const created = await createWithStatus(api, 'TaskRun', object, status());
        sent.bytes += created.bytes;
        return 1;
      };
    }
  }
}

async function createTarget(api: RawApi, target: TargetPlan, index: number, sent: { bytes: number }, allowed: readonly number[] = []): Promise<number> {
  const object = targetObject(target, index);
  sent.bytes += JSON.stringify(object).length;
  await api.expect('POST', collection('PipelineResource', target.namespace), object, allowed);
  return 1;
}

export async function ensureNamespace(api: RawApi, name: string): Promise<void> {
  await api.expect('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, [409]);
}

/** Seeds the whole cluster of `shape`; throws on the first request that fails for good. */
export async function seedCluster(api: RawApi, shape: ClusterShape, options: SeedOptions): Promise<SeedResult> {
  const started = Date.now();
  const requestsBefore = api.requests;
  for (let i = 0; i < shape.namespaces; i++) await ensureNamespace(api, planNamespace(shape, i).name);
  const total = shape.targets + shape.runs;
  let done = 0;
  const sent = { bytes: 0 };
  const progress = setInterval(() => options.log(progressLine('seed', done, total, started)), 2_000);
  try {
    await pool(seedTasks(api, shape, Date.now(), sent), options.concurrency, (objects) => (done += objects));
  } finally {
    clearInterval(progress);
  }
  options.log(progressLine('seeded', done, total, started));
  return { objects: done, requests: api.requests - requestsBefore, ms: Date.now() - started, bytesSent: sent.bytes };
}

/** Targets named by nothing in a namespace of their own, for the live pass to delete. */
export async function seedLiveTargets(api: RawApi, count: number, options: SeedOptions): Promise<void> {
  await ensureNamespace(api, LIVE_NAMESPACE);
  const sent = { bytes: 0 };
  const tasks = liveTargets(count).map((target, t) => () => createTarget(api, target, t, sent, [409]));
  await pool(tasks, options.concurrency, () => undefined);
}

/** Removes whatever an interrupted live pass left, so every benchmark starts from the same data. */
export async function clearLiveTargets(api: RawApi): Promise<void> {
  await api.expect('DELETE', collection('PipelineResource', LIVE_NAMESPACE), undefined, [404]);
}

function progressLine(what: string, done: number, total: number, started: number): string {
  const seconds = (Date.now() - started) / 1000;
  const rate = done / Math.max(seconds, 0.001);
  const eta = rate > 0 ? Math.round((total - done) / rate) : 0;
  const pct = total === 0 ? 100 : Math.floor((done / total) * 100);
  return `${what}: ${done}/${total} objects (${pct}%) in ${seconds.toFixed(0)} s, ${rate.toFixed(0)}/s${done < total ? `, about ${eta} s left` : ''}`;
}
