/**
 * --pushgateway-url: a pass's metrics pushed at its end. metrics.ts (and prom-client with it)
 * is loaded only when a push is asked for.
 */
import type { Config } from '../cli/config.js';
import type { Logger } from './log.js';
import type { PassFacts } from './metrics.js';
import { redactUrl } from '../text/redact.js';

/** A push that fails is logged and leaves the exit status alone: the pass itself went as it went. */
export async function pushPassMetrics(config: Pick<Config, 'pushgatewayUrl' | 'pushgatewayGrouping' | 'requestTimeoutMs'>, facts: PassFacts, log: Logger): Promise<void> {
  const url = config.pushgatewayUrl;
  if (url === undefined) return;
  // The URL may hold basic-auth credentials; the logs never do.
  const shown = redactUrl(url);
  try {
    // Loaded only when asked for: prom-client costs a third of a second and 10 MiB on every pass.
    const { pushPass } = await import('./metrics.js');
    await pushPass(url, facts, { grouping: config.pushgatewayGrouping ?? [], timeoutMs: config.requestTimeoutMs });
    log.debug({ pushgateway: shown }, 'metrics pushed');
  } catch (error) {
    log.error({ pushgateway: shown, err: error instanceof Error ? error.message : String(error) }, 'could not push the metrics; the pass is not affected');
  }
}
