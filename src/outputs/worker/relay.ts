/**
 * The worker side of health and logging: a HealthRegistry and a Logger that forward everything to the main thread,
 * where the real registry (read by /health, /api/status, the LEDs, the internal-event bridge) and log sink live.
 */
import { HealthRegistry, type ComponentState } from '../../core/health.js';
import type { LogFields, LogLevel, Logger } from '../../core/logger.js';
import type { MetricValues, WorkerMessage } from './messages.js';

type Post = (message: WorkerMessage) => void;

export class RelayHealthRegistry extends HealthRegistry {
  private readonly post: Post;

  constructor(post: Post) {
    super();
    this.post = post;
  }

  override report(
    name: string,
    kind: string,
    state: ComponentState,
    detail: string | null = null,
    metrics?: MetricValues,
  ): void {
    super.report(name, kind, state, detail, metrics);
    this.post({ type: 'report', name, kind, state, detail, ...(metrics ? { metrics } : {}) });
  }

  override setMetrics(name: string, metrics: MetricValues): void {
    super.setMetrics(name, metrics);
    this.post({ type: 'metrics', name, metrics });
  }

  override remove(name: string): void {
    super.remove(name);
    this.post({ type: 'remove', name });
  }
}

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** Lines below `minLevel` are dropped here, so a chatty debug log never crosses the thread boundary. */
export function relayLogger(post: Post, minLevel: LogLevel, namespace = ''): Logger {
  const send = (level: LogLevel, message: string, fields?: LogFields): void => {
    if (ORDER[level] < ORDER[minLevel]) return;
    post({ type: 'log', level, namespace, message, ...(fields ? { fields } : {}) });
  };
  return {
    debug: (m, f) => send('debug', m, f),
    info: (m, f) => send('info', m, f),
    warn: (m, f) => send('warn', m, f),
    error: (m, f) => send('error', m, f),
    child: (sub) => relayLogger(post, minLevel, namespace ? `${namespace}:${sub}` : sub),
  };
}
