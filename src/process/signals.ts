/** How a pass is stopped from outside: the signals that end it gracefully, then at once. */
import type { Logger } from '../ops/log.js';

/**
 * SIGTERM (a CronJob's pod being stopped) or Ctrl-C: start no new delete, finish the ones
 * in flight, write the report. A second signal ends the process at once.
 */
export function stopOnSignals(log: Logger): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const onSignal = (name: NodeJS.Signals): void => {
    if (controller.signal.aborted) {
      process.exit(128 + (name === 'SIGINT' ? 2 : 15));
    }
    log.warn({ signal: name }, 'stopping: no new request or delete will start');
    controller.abort();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return {
    signal: controller.signal,
    dispose: () => {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
    },
  };
}

/**
 * Whether `signal` is aborted now. A call rather than `signal.aborted` inline: TypeScript keeps
 * a property it has tested narrowed across an await, as if nothing else could set it, and a
 * signal is aborted by an event while the pass awaits.
 */
export function isAborted(signal: AbortSignal): boolean {
  return signal.aborted;
}
