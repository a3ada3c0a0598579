/**
 * GET /metrics: Prometheus text format (docs/metrics.md). Access is a bearer token with the scope
 * `metrics` (a grant, or `vigil token --scopes metrics`); nothing is served anonymously. The same
 * order of checks as every endpoint: 401, 405, 403. A store that cannot be read is 503. A caller
 * limited to some receivers gets only their series (src/services/metrics-service.ts).
 */
import type { Context, Hono } from 'hono';
import { describeError } from '../../core/errors.js';
import type { ApiDeps, ApiEnv } from '../deps.js';
import { authenticate } from '../middleware/auth.js';
import { addRoute } from '../route.js';
import { metricsFor, type MetricsSource } from '../../services/metrics-service.js';

export type { MetricsSource };

export function registerMetrics(
  app: Hono<ApiEnv>,
  deps: Pick<ApiDeps, 'tokens' | 'settings' | 'store' | 'logger' | 'health'>,
  source: MetricsSource,
): void {
  const logger = deps.logger.child('metrics');
  const auth = authenticate({ tokens: deps.tokens, settings: deps.settings, store: deps.store, logger });

  async function scrape(c: Context<ApiEnv>): Promise<Response> {
    try {
      const { body, contentType } = await metricsFor(source, deps.health, c.get('principal'));
      return c.body(body, 200, { 'Content-Type': contentType, 'Cache-Control': 'no-store' });
    } catch (err) {
      logger.error('metrics failed', { error: describeError(err) });
      return c.text('Metrics unavailable', 503);
    }
  }

  addRoute(app, { path: '/metrics', style: 'text', auth, scope: 'metrics', methods: { GET: scrape } });
}
