/**
 * The delete phase's breaker (--max-consecutive-failures): when deletes fail one after
 * another with the same HTTP status and Kubernetes reason (a 403 after an RBAC change, an
 * admission webhook refusing deletes), the candidates left would fail alike, so the phase
 * stops sending them. Pure: the delete phase says what each settled delete came to.
 */
import { KubeError } from '../kube/errors.js';

/** How a delete failed, as the breaker compares failures: `403 Forbidden`. */
export interface FailureKind {
  /** The HTTP status; 0 when no answer came (or the error was not the server's). */
  status: number;
  /** The Status object's `reason`; empty when the server sent none. */
  reason: string;
}

/** What stopped the phase: the failure that came `failures` times in a row, and the last one's message. */
export interface BreakerTrip extends FailureKind {
  failures: number;
  last: string;
}

/**
 * Counts failures in a row of one kind. A delete that succeeded (deleted, or left
 * terminating on a finalizer) starts the count again; a failure of another kind starts a
 * new count at 1. Gone (404) and changed (409) are not failures and leave the count as it
 * is: they say nothing about whether the next delete will be refused. A limit of 0 never trips.
 */
export class Breaker {
  private current: (FailureKind & { count: number }) | undefined;
  /** Set once `limit` failures of one kind came in a row; stays set. */
  tripped: BreakerTrip | undefined;

  constructor(readonly limit: number) {}

  failed(error: unknown, message: string): void {
    const kind = failureKind(error);
    const same = this.current !== undefined && this.current.status === kind.status && this.current.reason === kind.reason;
    this.current = { ...kind, count: same ? (this.current?.count ?? 0) + 1 : 1 };
    if (this.tripped === undefined && this.limit > 0 && this.current.count >= this.limit) {
      this.tripped = { ...kind, failures: this.current.count, last: message };
    }
  }

  succeeded(): void {
    this.current = undefined;
  }
}

export function failureKind(error: unknown): FailureKind {
  return error instanceof KubeError ? { status: error.status, reason: error.reason } : { status: 0, reason: '' };
}

/** `403 Forbidden`, `HTTP 500` (no reason sent), `no answer`. */
export function describeFailureKind({ status, reason }: FailureKind): string {
  if (status === 0) return reason === '' ? 'no answer' : reason;
  return reason === '' ? `HTTP ${status}` : `${status} ${reason}`;
}

/** `5 deletes in a row failed with 403 Forbidden`: what tripped it, as reports and logs say it. */
export function describeTrip(trip: Pick<BreakerTrip, 'status' | 'reason' | 'failures'>): string {
  return `${trip.failures} deletes in a row failed with ${describeFailureKind(trip)}`;
}
