/**
 * Seeds a control plane through its API as Tekton would leave it: each run created, then
 * its status written through the status subresource (the server drops a status sent on
 * create); in the leftovers shape (leftovers.ts), with what each run leaves behind. Many requests in flight over one keep-alive agent; progress on stderr.
 */
import https from 'node:https';
import {
  assistantObject,
  childrenOf,
  claimName,
  goneClaimObject,
  goneSecretObject,
  hasAssistant,
  leftoverTotals,
  liveSecretNames,
  pacSecretObject,
  planLeftoverNamespace,
  podObject,
  podsOfRun,
  runBindings,
  runClaimObject,
  type LeftoverRunPlan,
} from './leftovers.js';
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
  type WorkspaceBindings,
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

  /** One request, retried on throttling, server errors and broken connections; `accept` replaces application/json. */
  async request(method: string, path: string, body?: unknown, accept?: string): Promise<ApiAnswer> {
    for (let attempt = 1; ; attempt++) {
      try {
        const answer = await this.once(method, path, { body, accept });
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

  private once(method: string, path: string, content: { body: unknown; accept: string | undefined }): Promise<ApiAnswer> {
    const { body } = content;
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
            accept: content.accept ?? 'application/json',
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
  /** The "now" the runs' times are written from (epoch ms); Date.now() when absent. */
  nowMs?: number;
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
  // The runs shape has no PipelineResources: its runs bind a workspace, as a current Tekton's do.
  const bindings: WorkspaceBindings | undefined = shape.runGroups === undefined ? undefined : { workspaces: [{ name: 'source', emptyDir: {} }] };
  // Targets first (runs name them), then the runs, namespace after namespace.
  for (const plan of plans) {
    for (const [t, target] of plan.targets.entries()) yield () => createTarget(api, target, t, sent);
  }
  for (const plan of plans) {
    for (const run of plan.pipelineRuns) {
      yield async () => {
        const { object, status } = pipelineRunObjects(run, prBytes, nowMs, bindings);
        const childNames = Array.from({ length: run.children }, (_, i) => childTaskRunName(run.name, i));
        const parent = await createWithStatus(api, 'PipelineRun', object, status(childNames));
        // Never `sent.bytes += await …`: that reads the sum before the await and loses the other workers' additions.
        sent.bytes += parent.bytes;
        for (const [i, child] of childNames.entries()) {
          // Children of a running PipelineRun: the first has finished, the next still runs.
          const phase = run.phase === 'running' ? (i === 0 ? 'succeeded' : 'running') : run.phase;
          const pipelineTask = child.slice(run.name.length + 1);
          const objects = taskRunObjects(
            {
              namespace: run.namespace,
              name: child,
              phase,
              finishedHoursAgo: run.finishedHoursAgo,
              parent: { name: run.name, uid: parent.uid },
              pipelineTask,
              // The runs shape: the child's Pipeline is its parent's, its Task the pipeline task's.
              ...(run.pipeline !== undefined && { pipeline: run.pipeline, task: pipelineTask }),
            },
            trBytes,
            nowMs,
            bindings,
          );
          const created = await createWithStatus(api, 'TaskRun', objects.object, objects.status());
          sent.bytes += created.bytes;
        }
        return 1 + childNames.length;
      };
    }
    for (const run of plan.taskRuns) {
      yield async () => {
        const { object, status } = taskRunObjects(run, trBytes, nowMs, bindings);
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
  const totals = shape.leftovers === undefined ? undefined : leftoverTotals(shape);
  const total = totals === undefined ? shape.targets + shape.runs : totals.runs + totals.claims + totals.secrets + totals.pods + totals.statefulSets;
  let done = 0;
  const sent = { bytes: 0 };
  const progress = setInterval(() => options.log(progressLine('seed', done, total, started)), 2_000);
  try {
    const nowMs = options.nowMs ?? Date.now();
    const tasks = shape.leftovers === undefined ? seedTasks(api, shape, nowMs, sent) : leftoverSeedTasks(api, shape, nowMs, sent);
    await pool(tasks, options.concurrency, (objects) => (done += objects));
  } finally {
    clearInterval(progress);
  }
  options.log(progressLine('seeded', done, total, started));
  return { objects: done, requests: api.requests - requestsBefore, ms: Date.now() - started, bytesSent: sent.bytes };
}

/**
 * Targets named by nothing in a namespace of their own, for the live pass to delete:
 * PipelineResources, or for the leftovers shape Pipelines-as-Code Secrets with no owner.
 */
export async function seedLiveTargets(api: RawApi, count: number, options: SeedOptions & { leftovers: boolean }): Promise<void> {
  await ensureNamespace(api, LIVE_NAMESPACE);
  const sent = { bytes: 0 };
  const tasks = options.leftovers
    ? liveSecretNames(count).map((name) => () => post(api, `/api/v1/namespaces/${LIVE_NAMESPACE}/secrets`, pacSecretObject(LIVE_NAMESPACE, name), sent, [409]))
    : liveTargets(count).map((target, t) => () => createTarget(api, target, t, sent, [409]));
  await pool(tasks, options.concurrency, () => undefined);
}

/** Removes whatever an interrupted live pass left, so every benchmark starts from the same data. */
export async function clearLiveTargets(api: RawApi, leftovers: boolean): Promise<void> {
  const path = leftovers ? `/api/v1/namespaces/${LIVE_NAMESPACE}/secrets` : collection('PipelineResource', LIVE_NAMESPACE);
  await api.expect('DELETE', path, undefined, [404]);
}

// ---------------------------------------------------------------------------------------
// The leftovers shape (leftovers.ts)

/** One object: POST, counting what was sent; resolves with 1 (one object made). */
async function post(api: RawApi, path: string, object: Record<string, unknown>, sent: { bytes: number }, allowed: readonly number[] = []): Promise<number> {
  sent.bytes += JSON.stringify(object).length;
  await api.expect('POST', path, object, allowed);
  return 1;
}

/** A Pod, then its phase through /status (no kubelet writes it). */
async function createPod(api: RawApi, namespace: string, object: Record<string, unknown>, phase: string, sent: { bytes: number }): Promise<number> {
  const base = `/api/v1/namespaces/${namespace}/pods`;
  const created = JSON.parse((await api.expect('POST', base, object)).body.toString('utf8')) as { metadata: { name: string }; status?: Record<string, unknown> };
  const body = { ...created, status: { ...created.status, phase } };
  sent.bytes += JSON.stringify(body).length;
  await api.expect('PUT', `${base}/${created.metadata.name}/status`, body);
  return 1;
}

interface RunSizes {
  prBytes: number;
  trBytes: number;
  nowMs: number;
}

/**
 * A run and everything it made, in one task (the names hash its uid): the run with its status,
 * its claim, its Secret (owner set once the run exists, as Pipelines-as-Code does), a
 * PipelineRun's children bound to both, the Pods, and a running PipelineRun's affinity assistant.
 */
async function seedLeftoverRun(api: RawApi, run: LeftoverRunPlan, sizes: RunSizes, sent: { bytes: number }): Promise<number> {
  const { namespace } = run;
  const core = `/api/v1/namespaces/${namespace}`;
  let objects = 1;
  let created: { uid: string; bytes: number };
  if (run.kind === 'PipelineRun') {
    const { object, status } = pipelineRunObjects({ ...run, kind: 'PipelineRun' }, sizes.prBytes, sizes.nowMs, runBindings(run));
    created = await createWithStatus(api, 'PipelineRun', object, status(childrenOf(run).map((child) => child.name)));
  } else {
    const { object, status } = taskRunObjects(run, sizes.trBytes, sizes.nowMs, runBindings(run));
    created = await createWithStatus(api, 'TaskRun', object, status());
  }
  sent.bytes += created.bytes;
  if (run.claim !== undefined) objects += await post(api, `${core}/persistentvolumeclaims`, runClaimObject(run, created.uid), sent);
  if (run.secret !== undefined) objects += await post(api, `${core}/secrets`, pacSecretObject(namespace, run.secret, { name: run.name, uid: created.uid }), sent);
  for (const child of childrenOf(run)) {
    const parent = { name: run.name, uid: created.uid };
    const bindings = runBindings(run, { claim: claimName(created.uid) });
    const { object, status } = taskRunObjects({ namespace, name: child.name, phase: child.phase, finishedHoursAgo: run.finishedHoursAgo, parent, pipelineTask: child.name.slice(run.name.length + 1) }, sizes.trBytes, sizes.nowMs, bindings);
    sent.bytes += (await createWithStatus(api, 'TaskRun', object, status())).bytes;
    objects++;
  }
  for (const pod of podsOfRun(run)) {
    const object = podObject(namespace, { name: pod.name, ...(pod.claim && { claim: claimName(created.uid) }), ...(pod.secret !== undefined && { secret: pod.secret }) });
    objects += await createPod(api, namespace, object, pod.phase, sent);
  }
  if (hasAssistant(run)) {
    objects += await post(api, `/apis/apps/v1/namespaces/${namespace}/statefulsets`, assistantObject(run, created.uid), sent);
  }
  return objects;
}

function* leftoverSeedTasks(api: RawApi, shape: ClusterShape, nowMs: number, sent: { bytes: number }): Generator<() => Promise<number>> {
  const sizes = { prBytes: shape.prKb * 1024, trBytes: shape.trKb * 1024, nowMs };
  for (let i = 0; i < shape.namespaces; i++) {
    const plan = planLeftoverNamespace(shape, i);
    for (const run of [...plan.pipelineRuns, ...plan.taskRuns]) yield () => seedLeftoverRun(api, run, sizes, sent);
    for (const gone of plan.goneClaims) yield () => post(api, `/api/v1/namespaces/${plan.name}/persistentvolumeclaims`, goneClaimObject(gone), sent);
    for (const gone of plan.goneSecrets) yield () => post(api, `/api/v1/namespaces/${plan.name}/secrets`, goneSecretObject(gone), sent);
  }
}

function progressLine(what: string, done: number, total: number, started: number): string {
  const seconds = (Date.now() - started) / 1000;
  const rate = done / Math.max(seconds, 0.001);
  const eta = rate > 0 ? Math.round((total - done) / rate) : 0;
  const pct = total === 0 ? 100 : Math.floor((done / total) * 100);
  return `${what}: ${done}/${total} objects (${pct}%) in ${seconds.toFixed(0)} s, ${rate.toFixed(0)}/s${done < total ? `, about ${eta} s left` : ''}`;
}
