/**
 * The adapter's cluster reads and writes (kube/cluster.ts), for every collector. How the first
 * read of a pass lists what it wants: one namespace at a time, or one list across the cluster
 * (readsPerNamespace, the share measured by `npm run bench -- --shape skew --crossover`).
 * And KubeCluster against a small fake API server that records every request: discovery per
 * collector (PipelineResources alone, beside the leftovers, or not served), the lists each
 * collector makes (Secrets as metadata only), the DELETE of a claim that stays Terminating,
 * and the guarded JSON patch of --pvc-finalizer purge. The real API server's side of the
 * leftovers' requests is test/integration/leftovers.test.ts.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { CollectorName } from '../../src/core/collectors.js';
import type { TargetRecord } from '../../src/core/types.js';
import { KubeCluster, METADATA_LIST_ONLY, METADATA_OBJECT_ONLY, PER_NAMESPACE_READ_SHARE, readsPerNamespace, type ServedApis } from '../../src/kube/cluster.js';
import { DEFAULT_RETRY, KubeHttp } from '../../src/kube/http.js';

describe('readsPerNamespace', () => {
  const rows: { wanted: number; clusterWide: number; perNamespace: boolean; why: string }[] = [
    { wanted: 5, clusterWide: 205, perNamespace: true, why: "the issue's skewed cluster: targets in 5 namespaces of 205" },
    { wanted: 1, clusterWide: 1, perNamespace: true, why: 'one namespace: its own list is never more than the whole' },
    { wanted: 1, clusterWide: 0, perNamespace: true, why: 'one namespace, whatever the count' },
    { wanted: 3, clusterWide: 7, perNamespace: true, why: 'a small cluster: 3 of 7, the server having 4 of its own' },
    { wanted: 50, clusterWide: 54, perNamespace: false, why: "the benchmark's default shape: targets in 50 of 54" },
    { wanted: 200, clusterWide: 200, perNamespace: false, why: 'every namespace' },
    { wanted: 75, clusterWide: 100, perNamespace: true, why: 'exactly the share' },
    { wanted: 76, clusterWide: 100, perNamespace: false, why: 'just above it' },
  ];
  for (const row of rows) {
    it(`${row.wanted} of ${row.clusterWide}: ${row.perNamespace ? 'one by one' : 'across the cluster'} (${row.why})`, () => {
      assert.equal(readsPerNamespace(row.wanted, row.clusterWide), row.perNamespace);
    });
  }

  it('reads one by one up to the share, never above it', () => {
    for (let clusterWide = 2; clusterWide <= 300; clusterWide++) {
      for (let wanted = 2; wanted <= clusterWide; wanted++) {
        assert.equal(readsPerNamespace(wanted, clusterWide), wanted / clusterWide <= PER_NAMESPACE_READ_SHARE, `${wanted} of ${clusterWide}`);
      }
    }
  });
});

interface Seen {
  method: string;
  path: string;
  query: URLSearchParams;
  accept: string;
  contentType: string;
  body: unknown;
}

type Answer = { status: number; body: unknown };

/** A route's answer, or undefined for 404. */
type Route = (request: Seen) => Answer | undefined;

const list = (kind: string, items: unknown[]): Answer => ({ status: 200, body: { kind, apiVersion: 'v1', metadata: { resourceVersion: '9' }, items } });
const resources = (...names: string[]): Answer => ({ status: 200, body: { kind: 'APIResourceList', resources: names.map((name) => ({ name })) } });

/** Discovery of a cluster with Tekton v0.45 (PipelineResources) or without them, runs or not. */
function discovery(shape: { pipelineResources: boolean; taskRuns: boolean }): Route {
  return (request) => {
    if (request.method !== 'GET') return undefined;
    switch (request.path) {
      case '/apis/tekton.dev':
        return { status: 200, body: { kind: 'APIGroup', versions: [{ version: 'v1beta1' }, { version: 'v1alpha1' }] } };
      case '/apis/tekton.dev/v1beta1':
        return resources('pipelineruns', 'pipelineruns/status', ...(shape.taskRuns ? ['taskruns'] : []));
      case '/apis/tekton.dev/v1alpha1':
        return resources('pipelineruns', ...(shape.taskRuns ? ['taskruns'] : []), ...(shape.pipelineResources ? ['pipelineresources'] : []));
      case '/api/v1':
        return resources('namespaces', 'pods', 'pods/status', 'secrets', 'persistentvolumeclaims');
      case '/apis/apps/v1':
        return resources('statefulsets', 'statefulsets/scale');
      default:
        return undefined;
    }
  };
}

const OWNED_CLAIM = {
  metadata: {
    namespace: 'ci',
    name: 'pvc-3f5a0c9e1b',
    uid: 'claim-uid',
    resourceVersion: '41',
    creationTimestamp: '2026-11-30T08:00:00Z',
    finalizers: ['kubernetes.io/pvc-protection'],
    ownerReferences: [{ apiVersion: 'tekton.dev/v1', kind: 'PipelineRun', name: 'build', uid: 'run-uid', controller: true, blockOwnerDeletion: true }],
  },
  spec: { resources: { requests: { storage: '1Gi' } } },
};

const PAC_SECRET = {
  kind: 'PartialObjectMetadata',
  apiVersion: 'meta.k8s.io/v1',
  metadata: {
    namespace: 'ci',
    name: 'pac-gitauth-abcdef',
    uid: 'secret-uid',
    resourceVersion: '7',
    creationTimestamp: '2026-11-30T08:00:00Z',
    labels: { 'app.kubernetes.io/managed-by': 'pipelinesascode.tekton.dev' },
  },
};

describe('KubeCluster against a fake API server', () => {
  let server: Server;
  let seen: Seen[] = [];
  let routes: Route[] = [];
  let http: KubeHttp;
  let cluster: KubeCluster;

  before(async () => {
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'http://fake');
        const text = Buffer.concat(chunks).toString('utf8');
        const request: Seen = {
          method: req.method ?? '',
          path: url.pathname,
          query: url.searchParams,
          accept: req.headers.accept ?? '',
          contentType: req.headers['content-type'] ?? '',
          body: text === '' ? undefined : (JSON.parse(text) as unknown),
        };
        seen.push(request);
        const answer = routes.map((route) => route(request)).find((found) => found !== undefined) ?? { status: 404, body: { kind: 'Status', code: 404, reason: 'NotFound' } };
        res.writeHead(answer.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answer.body));
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    http = await KubeHttp.create(
      { server: `http://127.0.0.1:${port}`, origin: 'a fake API server', tls: {}, headers: () => Promise.resolve({}) },
      { maxSockets: 2, retry: { ...DEFAULT_RETRY, maxAttempts: 1 }, requestTimeoutMs: 5_000 },
    );
    cluster = new KubeCluster(http, 500);
  });

  after(() => {
    http.close();
    server.close();
  });

  beforeEach(() => {
    seen = [];
    routes = [];
  });

  const paths = (): string[] => seen.map((request) => `${request.method} ${request.path}`);
  const discover = (collect: readonly CollectorName[]): Promise<ServedApis> => cluster.discover(collect);

  describe('discover', () => {
    it('asks only the tekton.dev group for PipelineResources alone, as a pass always did', async () => {
      routes = [discovery({ pipelineResources: true, taskRuns: true })];
      const apis = await discover(['pipelineresources']);
      assert.deepEqual(paths(), ['GET /apis/tekton.dev', 'GET /apis/tekton.dev/v1beta1', 'GET /apis/tekton.dev/v1alpha1']);
      assert.deepEqual(apis.targets, { pipelineresources: { group: 'tekton.dev', version: 'v1alpha1', plural: 'pipelineresources' } });
      assert.deepEqual([apis.leftovers, apis.pods, apis.statefulSets, apis.skipped], [false, undefined, undefined, []]);
    });

    it('says PipelineResources are not served, in the line a pass always printed', async () => {
      routes = [discovery({ pipelineResources: false, taskRuns: true })];
      const apis = await discover(['pipelineresources']);
      assert.deepEqual(apis.targets, {});
      assert.deepEqual(apis.skipped, [{ collectors: ['pipelineresources'], missing: 'pipelineresources.tekton.dev/v1alpha1 is not served by this cluster', why: 'pipelineresources.tekton.dev/v1alpha1 is not served by this cluster: pipelineresources skipped' }]);
    });

    it('goes on with the leftovers when PipelineResources are not served, each kind and holder asked once', async () => {
      routes = [discovery({ pipelineResources: false, taskRuns: true })];
      const apis = await discover(['pipelineresources', 'workspace-pvcs', 'pac-secrets', 'affinity-assistants']);
      assert.deepEqual(Object.keys(apis.targets).sort(), ['affinity-assistants', 'pac-secrets', 'workspace-pvcs']);
      assert.deepEqual(apis.targets['workspace-pvcs'], { group: '', version: 'v1', plural: 'persistentvolumeclaims' });
      assert.deepEqual(apis.targets['affinity-assistants'], { group: 'apps', version: 'v1', plural: 'statefulsets' });
      assert.deepEqual(apis.pods, { group: '', version: 'v1', plural: 'pods' });
      assert.deepEqual(apis.statefulSets, { group: 'apps', version: 'v1', plural: 'statefulsets' });
      assert.equal(apis.leftovers, true);
      assert.deepEqual(apis.skipped.map((skip) => skip.collectors), [['pipelineresources']]);
      // In the collectors' order: affinity-assistants (apps/v1) first.
      assert.deepEqual(paths().slice(3), ['GET /apis/apps/v1', 'GET /api/v1']);
    });

    it('skips every leftover collector in one line when a run kind is not served: no run is not "owner gone"', async () => {
      routes = [discovery({ pipelineResources: true, taskRuns: false })];
      const apis = await discover(['pipelineresources', 'pac-secrets', 'workspace-pvcs']);
      assert.deepEqual(Object.keys(apis.targets), ['pipelineresources']);
      assert.equal(apis.leftovers, false);
      assert.deepEqual(apis.skipped, [
        {
          collectors: ['pac-secrets', 'workspace-pvcs'],
          missing: 'taskruns.tekton.dev is not served by this cluster',
          why: 'taskruns.tekton.dev is not served by this cluster: pac-secrets, workspace-pvcs skipped, since without runs every leftover would look ownerless',
        },
      ]);
      // Nothing else is asked: the leftovers cannot run anyway.
      assert.equal(paths().some((path) => path.includes('/api/v1') || path.includes('/apps/')), false);
    });

    it('skips a collector whose kind or holder is not served, and keeps the others', async () => {
      routes = [
        (request) => (request.path === '/apis/apps/v1' ? undefined : discovery({ pipelineResources: false, taskRuns: true })(request)),
      ];
      const apis = await discover(['affinity-assistants', 'pac-secrets', 'workspace-pvcs']);
      assert.deepEqual(Object.keys(apis.targets), ['pac-secrets']);
      assert.equal(apis.statefulSets, undefined);
      assert.deepEqual(apis.skipped, [
        { collectors: ['affinity-assistants'], missing: 'statefulsets.apps/v1 is not served by this cluster', why: 'statefulsets.apps/v1 is not served by this cluster: affinity-assistants skipped' },
        { collectors: ['workspace-pvcs'], missing: 'statefulsets.apps/v1 is not served by this cluster', why: 'statefulsets.apps/v1 is not served by this cluster: workspace-pvcs skipped' },
      ]);
    });
  });

  describe('Secrets, as metadata only', () => {
    it('lists with the managed-by selector ANDed with --selector, and asks every secrets request for metadata alone', async () => {
      routes = [
        discovery({ pipelineResources: false, taskRuns: true }),
        // The server selects: by name, none of them carries team=a.
        (request) => (request.method === 'GET' && request.path === '/api/v1/namespaces/ci/secrets' && request.query.has('fieldSelector') ? list('PartialObjectMetadataList', []) : undefined),
        (request) => (request.method === 'GET' && request.path === '/api/v1/namespaces/ci/secrets' ? list('PartialObjectMetadataList', [PAC_SECRET, { ...PAC_SECRET, metadata: { ...PAC_SECRET.metadata, name: 'registry-creds', uid: 'other' } }]) : undefined),
        (request) => (request.method === 'GET' && request.path === '/api/v1/namespaces/ci/secrets/pac-gitauth-abcdef' ? { status: 200, body: PAC_SECRET } : undefined),
        (request) => (request.method === 'DELETE' ? { status: 200, body: { ...PAC_SECRET, metadata: { ...PAC_SECRET.metadata, deletionTimestamp: '2026-12-01T08:00:00Z' } } } : undefined),
      ];
      const apis = await discover(['pac-secrets']);
      const targets = await cluster.listTargets(apis, { namespaces: ['ci'], excludeNamespaces: [], selector: 'team=a' });
      // registry-creds carries the label here but not the name: no marker, no target.
      assert.deepEqual(targets.map((target) => [target.kind, target.name]), [['Secret', 'pac-gitauth-abcdef']]);
      const target = targets[0] as TargetRecord;
      assert.equal((await cluster.readTarget(apis, 'ci', 'pac-gitauth-abcdef', 'Secret'))?.uid, 'secret-uid');
      assert.equal(await cluster.targetMatches(apis, target, 'team=a'), false);
      assert.deepEqual(await cluster.deleteTarget(apis, target), { outcome: 'deleted' });

      const secrets = seen.filter((request) => request.path.includes('/secrets'));
      assert.deepEqual(secrets.map((request) => request.method), ['GET', 'GET', 'GET', 'DELETE']);
      for (const request of secrets) {
        const metadataOnly = request.query.has('limit') ? METADATA_LIST_ONLY : METADATA_OBJECT_ONLY;
        assert.equal(request.accept, metadataOnly, `${request.method} ${request.path}?${request.query.toString()}`);
      }
      assert.equal(secrets[0]?.query.get('labelSelector'), 'app.kubernetes.io/managed-by in (pipelinesascode.tekton.dev,pipelines-as-code),team=a');
      assert.equal(secrets[2]?.query.get('fieldSelector'), 'metadata.name=pac-gitauth-abcdef');
      assert.deepEqual(secrets[3]?.body, { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Background', preconditions: { uid: 'secret-uid', resourceVersion: '7' } });
    });
  });

  describe('claims', () => {
    const claimRoutes = (onDelete: Answer, onPatch?: Answer): Route[] => [
      discovery({ pipelineResources: false, taskRuns: true }),
      (request) => (request.method === 'GET' && request.path === '/api/v1/namespaces/ci/persistentvolumeclaims' ? list('PersistentVolumeClaimList', [OWNED_CLAIM, { metadata: { ...OWNED_CLAIM.metadata, name: 'users', uid: 'u', ownerReferences: [] } }]) : undefined),
      (request) => (request.method === 'DELETE' ? onDelete : undefined),
      (request) => (request.method === 'PATCH' && onPatch !== undefined ? onPatch : undefined),
    ];
    const claimOf = async (): Promise<{ apis: ServedApis; claim: TargetRecord }> => {
      const apis = await discover(['workspace-pvcs']);
      const targets = await cluster.listTargets(apis, { namespaces: ['ci'], excludeNamespaces: [], selector: '' });
      // The claim without a Tekton owner is no target.
      assert.deepEqual(targets.map((target) => target.name), ['pvc-3f5a0c9e1b']);
      return { apis, claim: targets[0] as TargetRecord };
    };
    const terminating = { status: 200, body: { ...OWNED_CLAIM, metadata: { ...OWNED_CLAIM.metadata, resourceVersion: '42', deletionTimestamp: '2026-12-01T08:00:00Z' } } };

    it('is terminating when the DELETE leaves it with its finalizer, with the resourceVersion of the answer', async () => {
      routes = claimRoutes(terminating);
      const { apis, claim } = await claimOf();
      assert.deepEqual(await cluster.deleteTarget(apis, claim), { outcome: 'terminating', remaining: { resourceVersion: '42', finalizers: ['kubernetes.io/pvc-protection'] } });
      const sent = seen.find((request) => request.method === 'DELETE');
      assert.equal(sent?.path, '/api/v1/namespaces/ci/persistentvolumeclaims/pvc-3f5a0c9e1b');
      assert.deepEqual(sent?.body, { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Background', preconditions: { uid: 'claim-uid', resourceVersion: '41' } });
    });

    it('is deleted when the answer is a Status or the object without finalizers, changed on 409, gone on 404', async () => {
      const cases: [Answer, string][] = [
        [{ status: 200, body: { kind: 'Status', status: 'Success' } }, 'deleted'],
        [{ status: 200, body: { ...OWNED_CLAIM, metadata: { ...OWNED_CLAIM.metadata, finalizers: [] } } }, 'deleted'],
        [{ status: 409, body: { kind: 'Status', code: 409, reason: 'Conflict' } }, 'changed'],
        [{ status: 404, body: { kind: 'Status', code: 404, reason: 'NotFound' } }, 'gone'],
      ];
      for (const [answer, outcome] of cases) {
        seen = [];
        routes = claimRoutes(answer);
        const { apis, claim } = await claimOf();
        assert.deepEqual(await cluster.deleteTarget(apis, claim), { outcome }, JSON.stringify(answer.body));
      }
    });

    it('purges pvc-protection with one JSON patch guarded by uid, resourceVersion and the finalizer at its index', async () => {
      routes = claimRoutes(terminating, { status: 200, body: { ...OWNED_CLAIM, metadata: { ...OWNED_CLAIM.metadata, finalizers: [] } } });
      const { apis, claim } = await claimOf();
      const seenAfterDelete = { resourceVersion: '42', finalizers: ['example.com/backup', 'kubernetes.io/pvc-protection'] };
      assert.deepEqual(await cluster.purgeClaimProtection(apis, claim, seenAfterDelete), { outcome: 'deleted' });
      const patch = seen.find((request) => request.method === 'PATCH');
      assert.equal(patch?.contentType, 'application/json-patch+json');
      assert.deepEqual(patch?.body, [
        { op: 'test', path: '/metadata/uid', value: 'claim-uid' },
        { op: 'test', path: '/metadata/resourceVersion', value: '42' },
        { op: 'test', path: '/metadata/finalizers/1', value: 'kubernetes.io/pvc-protection' },
        { op: 'remove', path: '/metadata/finalizers/1' },
      ]);
    });

    it('leaves a purged claim terminating while another finalizer stays, and says changed when a test fails (422) or it conflicts (409)', async () => {
      const snapshot = 'snapshot.storage.kubernetes.io/pvc-as-source-protection';
      const cases: [Answer, unknown][] = [
        [{ status: 200, body: { ...OWNED_CLAIM, metadata: { ...OWNED_CLAIM.metadata, resourceVersion: '43', finalizers: [snapshot] } } }, { outcome: 'terminating', remaining: { resourceVersion: '43', finalizers: [snapshot] } }],
        [{ status: 422, body: { kind: 'Status', code: 422, reason: 'Invalid' } }, { outcome: 'changed' }],
        [{ status: 409, body: { kind: 'Status', code: 409, reason: 'Conflict' } }, { outcome: 'changed' }],
        [{ status: 404, body: { kind: 'Status', code: 404, reason: 'NotFound' } }, { outcome: 'gone' }],
      ];
      for (const [answer, outcome] of cases) {
        seen = [];
        routes = claimRoutes(terminating, answer);
        const { apis, claim } = await claimOf();
        assert.deepEqual(await cluster.purgeClaimProtection(apis, claim, { resourceVersion: '42', finalizers: ['kubernetes.io/pvc-protection', snapshot] }), outcome);
      }
    });

    it('sends no patch when pvc-protection is not among the finalizers', async () => {
      routes = claimRoutes(terminating);
      const { apis, claim } = await claimOf();
      const others = { resourceVersion: '42', finalizers: ['example.com/backup'] };
      assert.deepEqual(await cluster.purgeClaimProtection(apis, claim, others), { outcome: 'terminating', remaining: others });
      assert.equal(seen.some((request) => request.method === 'PATCH'), false);
    });
  });
});
