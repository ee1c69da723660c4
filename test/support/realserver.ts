/**
 * The setup every real-server test file repeats, once: a control plane started before the
 * tests of the enclosing describe and stopped after them, with a Seeder on it; and a fault
 * proxy in front of it for the tests that watch the requests a pass makes.
 */
import { after, before } from 'node:test';
import { startControlPlane, type ControlPlane, type ControlPlaneOptions } from '../../harness/controlplane.js';
import { startFaultProxy, type FaultProxy } from './faultproxy.js';
import { Seeder } from './seed.js';

export interface RealServer {
  readonly controlPlane: ControlPlane;
  readonly seed: Seeder;
}

/** A control plane for the enclosing describe: read its fields inside tests and hooks, once it has started. */
export function useControlPlane(options: ControlPlaneOptions = {}): RealServer {
  let started: RealServer | undefined;
  before(async () => {
    const controlPlane = await startControlPlane(options);
    started = { controlPlane, seed: new Seeder(controlPlane.kubeConfig()) };
  });
  after(() => started?.controlPlane.stop());
  const running = (): RealServer => {
    if (started === undefined) throw new Error('the control plane is read before it started: read it inside a test or hook');
    return started;
  };
  return {
    get controlPlane() {
      return running().controlPlane;
    },
    get seed() {
      return running().seed;
    },
  };
}

/** A fault proxy in front of `server`'s control plane for the enclosing describe, reset by each test as it needs. */
export function useFaultProxy(server: RealServer): { readonly proxy: FaultProxy } {
  let started: FaultProxy | undefined;
  before(async () => {
    started = await startFaultProxy({ upstream: server.controlPlane.server, token: server.controlPlane.adminToken });
  });
  after(() => started?.stop());
  return {
    get proxy() {
      if (started === undefined) throw new Error('the fault proxy is read before it started: read it inside a test or hook');
      return started;
    },
  };
}
